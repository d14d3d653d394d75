package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.decode.Decoded;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.RejectedRecord;
import dev.floe.worker.testing.TestKafka;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Rejected records that released their bytes get them back from a real Kafka broker. */
class SourceRereaderTest {

  @Test
  void releasedRecordsGetTheirOwnKeyAndValueBackAndRecordsHoldingThemAreLeftAsTheyAre() {
    // given ten records in a partition, of which the 2nd and the 7th were decoded ahead and released their bytes
    String topic = TestKafka.topic("reread", 2);
    List<RawRecord> produced = IntStream.range(0, 10).mapToObj(i -> record(topic, i)).toList();
    TestKafka.produce(produced);
    RawRecord second = released(produced.get(1));
    RawRecord seventh = released(produced.get(6));
    RawRecord holding = produced.get(3);

    // when they are rejected together
    List<RejectedRecord> out;
    try (SourceRereader rereader = SourceRereader.of(TestKafka.bootstrap(), Map.of(), "test")) {
      out = rereader.withBytes(List.of(new RejectedRecord(seventh, "bad 7"), new RejectedRecord(holding, "bad 4"),
          new RejectedRecord(second, "bad 2")));
    }

    // then each carries its own bytes and reason, in the order they were rejected
    assertThat(out).extracting(RejectedRecord::reason).containsExactly("bad 7", "bad 4", "bad 2");
    assertThat(out).extracting(r -> r.record().offset()).containsExactly(6L, 3L, 1L);
    assertThat(out.get(0).record().value()).isEqualTo(produced.get(6).value());
    assertThat(out.get(0).record().key()).isEqualTo(produced.get(6).key());
    assertThat(out.get(1).record()).isSameAs(holding);
    assertThat(out.get(2).record().value()).isEqualTo(produced.get(1).value());
    assertThat(out.get(2).record().headers()).isEqualTo(produced.get(1).headers());
  }

  @Test
  void aRecordKafkaNoLongerHoldsGoesOnWithoutBytesAndAReasonThatSaysSo() throws Exception {
    // given a released record whose offset retention has since deleted, and one still held
    String topic = TestKafka.topic("reread-gone", 1);
    List<RawRecord> produced = IntStream.range(0, 5).mapToObj(i -> record(topic, i)).toList();
    TestKafka.produce(produced);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", TestKafka.bootstrap()))) {
      admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(3))).all().get();
    }

    // when both are rejected
    List<RejectedRecord> out;
    try (SourceRereader rereader = SourceRereader.of(TestKafka.bootstrap(), Map.of(), "test")) {
      out = rereader.withBytes(List.of(new RejectedRecord(released(produced.get(1)), "bad"),
          new RejectedRecord(released(produced.get(4)), "bad")));
    }

    // then the deleted one says its bytes are gone, and the other has them
    assertThat(out.get(0).reason()).isEqualTo("bad (its key and value were no longer in Kafka to re-read)");
    assertThat(out.get(0).record().value()).isNull();
    assertThat(out.get(0).record().offset()).isEqualTo(1L);
    assertThat(out.get(1).reason()).isEqualTo("bad");
    assertThat(out.get(1).record().value()).isEqualTo(produced.get(4).value());
  }

  private static RawRecord record(String topic, int i) {
    return new RawRecord(new TopicPartition(topic, 0), i, ("{\"id\":" + i + "}").getBytes(StandardCharsets.UTF_8),
        ("value " + i).getBytes(StandardCharsets.UTF_8), Map.of("h", new byte[] {(byte) i}));
  }

  /** The record as the decoding thread leaves it: its decode kept, its bytes gone. */
  private static RawRecord released(RawRecord r) {
    RawRecord copy = r.withBytes(r.key(), r.value());
    copy.keepDecoded(new Decoded.Skip("decoded ahead"));
    assertThat(copy.bytesReleased()).isTrue();
    return copy;
  }
}
