package dev.floe.worker.decode;

import org.apache.iceberg.types.Type;

/** One column of a change event's row: its name, Iceberg type, and how to read its JSON value. */
public record EventField(String name, Type type, boolean optional, ValueCodec codec) {}
