package dev.floe.worker.apply;

import dev.floe.worker.commit.ForwardingTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.ValidationException;

/**
 * Table operations that refuse a commit once another snapshot or schema has landed since the state
 * a schema change was planned on. The change records "files at or below sequence number S lack the
 * new column"; Iceberg would retry a conflicting transaction onto the new state with that S
 * unchanged, leaving the files of the snapshot in between unfilled (or add a column another worker
 * just added). Refused, the caller plans again from the new state.
 */
final class SequenceGuardedOperations extends ForwardingTableOperations {
  private final long expectedLastSequenceNumber;
  private final int expectedSchemaId;

  SequenceGuardedOperations(TableOperations delegate, TableMetadata plannedOn) {
    super(delegate);
    this.expectedLastSequenceNumber = plannedOn.lastSequenceNumber();
    this.expectedSchemaId = plannedOn.currentSchemaId();
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    if (base.lastSequenceNumber() != expectedLastSequenceNumber) {
      throw new ValidationException("a snapshot landed (sequence number %s, planned at %s) while the schema changed",
          base.lastSequenceNumber(), expectedLastSequenceNumber);
    }
    if (base.currentSchemaId() != expectedSchemaId) {
      throw new ValidationException("the schema changed (to id %s, planned on %s) meanwhile", base.currentSchemaId(), expectedSchemaId);
    }
    delegate.commit(base, metadata);
  }
}
