package dev.floe.worker.commit;

import java.util.Objects;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.ValidationException;

/**
 * Table operations that refuse a commit whose offset map was computed from an older state of the
 * sink. Iceberg retries a conflicting commit on its own, re-applying the same snapshot summary onto
 * the new parent; that is right for files but would let a stale offset map overwrite one another
 * worker just wrote. This guard lets Iceberg's retry through only when no snapshot carrying the
 * sink's offsets landed in between. It also refuses a batch planned on a schema that is no longer
 * the table's: its files would lack a column added meanwhile, and a column added with a default
 * must read that default, not null, for the rows they hold (format v2 cannot say so afterwards).
 */
final class OffsetGuardedOperations extends ForwardingTableOperations {
  private final String offsetsKey;
  private final Long basedOnSnapshotId;
  private final Integer plannedSchemaId;

  OffsetGuardedOperations(TableOperations delegate, String sinkId, Long basedOnSnapshotId, Integer plannedSchemaId) {
    super(delegate);
    this.offsetsKey = OffsetLedger.offsetsKey(sinkId);
    this.basedOnSnapshotId = basedOnSnapshotId;
    this.plannedSchemaId = plannedSchemaId;
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    if (plannedSchemaId != null && metadata.currentSchemaId() != plannedSchemaId) {
      // not a CommitFailedException: Iceberg would retry that onto the new schema with the same files
      throw new ValidationException("the table's schema changed (to id %s) since the batch was planned on id %s",
          metadata.currentSchemaId(), plannedSchemaId);
    }
    Snapshot committing = metadata.currentSnapshot();
    Long parent = committing == null ? null : committing.parentId();
    while (!Objects.equals(parent, basedOnSnapshotId)) {
      if (parent == null) {
        throw new ConcurrentSinkCommitException("snapshot " + basedOnSnapshotId + " is no longer an ancestor of the table's current state");
      }
      Snapshot between = metadata.snapshot(parent);
      if (between == null) {
        throw new ConcurrentSinkCommitException("snapshot " + parent + " has expired from the table's history");
      }
      if (between.summary().containsKey(offsetsKey)) {
        throw new ConcurrentSinkCommitException("snapshot " + parent + " of the same sink committed meanwhile");
      }
      parent = between.parentId();
    }
    delegate.commit(base, metadata);
  }
}
