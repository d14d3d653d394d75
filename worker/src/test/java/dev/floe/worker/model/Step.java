package dev.floe.worker.model;

import java.util.Map;

/** One step of a generated change history of the {@code orders} table. */
public sealed interface Step {
  /** An insert or update of a whole row; {@code note} may be a TOAST placeholder. */
  record Upsert(long id, Map<String, Object> values) implements Step {}

  /** A delete of a row (followed by a tombstone, as Debezium does). */
  record Delete(long id) implements Step {}

  /**
   * UPDATE of the primary key from {@code id} to {@code newId} with new values: Debezium emits a
   * delete of the old key and a create of the new one (in their own partitions) whose unchanged
   * TOAST values are placeholders. Only meaningful when {@code id} exists and {@code newId} does not.
   */
  record Rekey(long id, long newId, Map<String, Object> values) implements Step {}

  /** TRUNCATE of the source table; lands in one partition only. */
  record Truncate(int partition) implements Step {}

  /** ALTER TABLE: adds column {@code extra} and widens {@code qty} from int to bigint. */
  record EvolveSchema() implements Step {}
}
