package dev.floe.worker.runtime;

import dev.floe.worker.decode.SharedSchemas;
import java.nio.ByteBuffer;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The sink consumer's value deserializer: each value is held as it comes out of Kafka's fetch
 * buffer, its topic's repeated schema shared ({@link SharedSchemas#hold}), so a poll copies only
 * the payloads. Runs on the polling thread, as the consumer does.
 */
final class HeldValueDeserializer implements Deserializer<SharedSchemas.Held> {
  private final SharedSchemas schemas;

  HeldValueDeserializer(SharedSchemas schemas) {
    this.schemas = schemas;
  }

  @Override
  public SharedSchemas.Held deserialize(String topic, Headers headers, ByteBuffer data) {
    return schemas.hold(topic, data);
  }

  @Override
  public SharedSchemas.Held deserialize(String topic, byte[] data) {
    return data == null ? null : schemas.hold(topic, ByteBuffer.wrap(data));
  }
}
