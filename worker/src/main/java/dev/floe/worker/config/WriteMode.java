package dev.floe.worker.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How upserts and deletes of stored rows are written into the table. */
public enum WriteMode {
  /** Every touched key gets an equality delete; readers match them against data files. */
  @JsonProperty("equality-deletes")
  EQUALITY_DELETES("equality-deletes"),
  /**
   * Replaced and deleted rows are found through a primary-key index and deleted by position
   * (position-delete files in format v2, deletion vectors in v3): reads pay nothing extra.
   */
  @JsonProperty("position-deletes")
  POSITION_DELETES("position-deletes");

  /** The mode a new table is written in when the sink does not name one. */
  public static final WriteMode DEFAULT = POSITION_DELETES;

  /**
   * The table property that records the mode a table was created in, so that a later default
   * never changes how a live table is written.
   */
  public static final String TABLE_PROPERTY = "floe.write-mode";

  private final String text;

  WriteMode(String text) {
    this.text = text;
  }

  /** The mode's name as configured and as recorded in {@link #TABLE_PROPERTY}. */
  public String text() {
    return text;
  }

  /**
   * The mode an existing table is written in: the one the sink names; else the one the table
   * recorded at creation; else equality deletes, the default when tables recorded none (and the
   * mode that applies to any table, whoever wrote it).
   *
   * @param configured the sink's {@code writeMode}, null when unset
   * @param recorded the table's {@link #TABLE_PROPERTY}, null when absent
   */
  public static WriteMode forExistingTable(WriteMode configured, String recorded) {
    if (configured != null) {
      return configured;
    }
    for (WriteMode m : values()) {
      if (m.text.equals(recorded)) {
        return m;
      }
    }
    return EQUALITY_DELETES;
  }
}
