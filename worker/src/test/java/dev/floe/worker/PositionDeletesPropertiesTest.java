package dev.floe.worker;

import dev.floe.worker.config.WriteMode;

/** The model properties in the position-deletes mode (position deletes in v2, deletion vectors in v3). */
class PositionDeletesPropertiesTest extends ModelProperties {
  @Override
  protected WriteMode mode() {
    return WriteMode.POSITION_DELETES;
  }
}
