package dev.floe.worker.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.testing.AvroSamples.Schemas;
import dev.floe.worker.testing.DebeziumAvroCapture.Captured;
import dev.floe.worker.testing.DebeziumAvroCapture.WireFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The saved Debezium Avro samples (written by DebeziumAvroCaptureTest with
 * {@code -Dfloe.capture.write}) hold what decoder tests rely on, with no registry and no
 * PostgreSQL: every event kind in both wire formats, every id resolvable in the saved schemas, and
 * a globalId that differs from the contentId of the same schema.
 */
class CapturedAvroSamplesTest {
  @Test
  void theSavedSamplesHoldEveryEventInBothWireFormatsWithTheirWriterSchemas() throws Exception {
    List<Captured> confluent = AvroSamples.read(WireFormat.CONFLUENT);
    List<Captured> headers = AvroSamples.read(WireFormat.APICURIO_HEADERS);
    Schemas schemas = AvroSamples.readSchemas();

    AvroSamples.assertCaptureHolds(confluent, headers, schemas);

    for (int i = 0; i < confluent.size(); i++) {
      if (confluent.get(i).value() != null) {
        long contentId = AvroSamples.frame(WireFormat.CONFLUENT, confluent.get(i), false).id();
        long globalId = AvroSamples.frame(WireFormat.APICURIO_HEADERS, headers.get(i), false).id();
        assertThat(globalId).as("record %d: a reader that took one id for the other would fail here", i).isNotEqualTo(contentId);
        assertThat(schemas.byGlobalId().get(globalId)).isEqualTo(schemas.byContentId().get(contentId));
      }
    }
  }
}
