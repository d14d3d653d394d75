package dev.floe.worker.decode;

import com.fasterxml.jackson.databind.JsonNode;

/** Reads one column's JSON value into the Java value Iceberg's generic records hold. */
@FunctionalInterface
public interface ValueCodec {
  /** Decodes a non-null JSON value; throws {@link IllegalArgumentException} when it does not fit. */
  Object decode(JsonNode node);
}
