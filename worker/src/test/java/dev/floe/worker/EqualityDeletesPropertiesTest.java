package dev.floe.worker;

import dev.floe.worker.config.WriteMode;

/** The model properties in the equality-deletes mode. */
class EqualityDeletesPropertiesTest extends ModelProperties {
  @Override
  protected WriteMode mode() {
    return WriteMode.EQUALITY_DELETES;
  }
}
