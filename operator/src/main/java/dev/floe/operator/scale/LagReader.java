package dev.floe.operator.scale;

import dev.floe.worker.config.SourceSpec;
import java.util.Map;

/** Reads a sink's consumer-group lag. */
public interface LagReader {
  /**
   * @param clientProperties extra Kafka client properties (security) from the sink's Secret
   * @throws LagReadException when the lag cannot be read; callers must not treat that as no lag
   */
  ConsumerLag read(SourceSpec source, Map<String, String> clientProperties);
}
