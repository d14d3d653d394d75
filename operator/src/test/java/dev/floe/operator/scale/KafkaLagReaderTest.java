package dev.floe.operator.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.quickstart.EmbeddedKafka;
import dev.floe.worker.runtime.CommitStamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The lag reader against a real Kafka broker (KRaft, in this JVM). */
class KafkaLagReaderTest {
  static EmbeddedKafka kafka;

  @BeforeAll
  static void startKafka() throws Exception {
    kafka = new EmbeddedKafka();
  }

  @AfterAll
  static void stopKafka() throws Exception {
    kafka.close();
  }

  @Test
  void lagIsEndOffsetsMinusTheGroupsCommittedOffsetsAndANewGroupsBacklogCounts() throws Exception {
    kafka.createTopic("pg.public.orders", 3);
    produce("pg.public.orders", 0, 10);
    produce("pg.public.orders", 1, 4);
    // the group has applied 7 records of partition 0 and has never committed partition 1 or 2
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
      admin.alterConsumerGroupOffsets("floe-orders", Map.of(new TopicPartition("pg.public.orders", 0), new OffsetAndMetadata(7))).all().get();
    }
    try (KafkaLagReader reader = new KafkaLagReader(Duration.ofSeconds(10))) {
      ConsumerLag lag = reader.read(source(List.of("pg.public.orders"), null, "floe-orders"), Map.of());

      assertThat(lag.byName()).containsExactly(
          Map.entry("pg.public.orders-0", 3L), Map.entry("pg.public.orders-1", 4L), Map.entry("pg.public.orders-2", 0L));
      assertThat(lag.total()).isEqualTo(7);
    }
  }

  @Test
  void theNewestCommitStampOfTheWorkersComesWithTheLag() throws Exception {
    kafka.createTopic("pg.public.refunds", 3);
    Instant older = Instant.parse("2026-03-01T10:00:00Z");
    Instant newer = Instant.parse("2026-03-01T10:05:00Z");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
      admin.alterConsumerGroupOffsets("floe-refunds", Map.of(
          new TopicPartition("pg.public.refunds", 0), new OffsetAndMetadata(0, CommitStamp.of(older, 11)),
          new TopicPartition("pg.public.refunds", 1), new OffsetAndMetadata(0, CommitStamp.of(newer, 12)),
          new TopicPartition("pg.public.refunds", 2), new OffsetAndMetadata(0, "written by another tool"))).all().get();
    }
    try (KafkaLagReader reader = new KafkaLagReader(Duration.ofSeconds(10))) {
      ConsumerLag lag = reader.read(source(List.of("pg.public.refunds"), null, "floe-refunds"), Map.of());
      assertThat(lag.lastCommit()).isEqualTo(newer);
      assertThat(lag.lastSnapshotId()).isEqualTo(12L);

      ConsumerLag none = reader.read(source(List.of("pg.public.refunds"), null, "floe-never-committed"), Map.of());
      assertThat(none.lastCommit()).as("a group without stamped offsets").isNull();
    }
  }

  @Test
  void aTopicPatternCoversEveryMatchingTopic() throws Exception {
    kafka.createTopic("pg.shop.items", 1);
    kafka.createTopic("pg.shop.carts", 2);
    produce("pg.shop.items", 0, 5);
    produce("pg.shop.carts", 1, 2);
    try (KafkaLagReader reader = new KafkaLagReader(Duration.ofSeconds(10))) {
      ConsumerLag lag = reader.read(source(List.of(), "pg\\.shop\\..*", "floe-shop"), Map.of());

      assertThat(lag.partitions()).hasSize(3);
      assertThat(lag.total()).isEqualTo(7);
    }
  }

  @Test
  void anUnreachableClusterIsAFailedReadNotZeroLag() {
    try (KafkaLagReader reader = new KafkaLagReader(Duration.ofSeconds(2))) {
      assertThatThrownBy(() -> reader.read(new SourceSpec("127.0.0.1:1", List.of("t"), null, "g", null, Map.of()), Map.of()))
          .isInstanceOf(LagReadException.class)
          .hasMessageContaining("cannot read the lag of group g");
    }
  }

  private static SourceSpec source(List<String> topics, String pattern, String group) {
    return new SourceSpec(kafka.bootstrapServers(), topics, pattern, group, null, Map.of());
  }

  private static void produce(String topic, int partition, int count) throws Exception {
    try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", kafka.bootstrapServers()),
        new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < count; i++) {
        p.send(new ProducerRecord<>(topic, partition, "k" + i, "v" + i)).get();
      }
    }
  }
}
