package dev.floe.worker.commit;

import java.util.Objects;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * Table operations that refuse a commit whose offset map was computed from an older state of the
 * sink. Iceberg retries a conflicting commit on its own, re-applying the same snapshot summary onto
 * the new parent; that is right for files but would let a stale offset map overwrite one another
 * worker just wrote. This guard lets Iceberg's retry through only when no snapshot carrying the
 * sink's offsets landed in between.
 */
final class OffsetGuardedOperations implements TableOperations {
  private final TableOperations delegate;
  private final String offsetsKey;
  private final Long basedOnSnapshotId;

  OffsetGuardedOperations(TableOperations delegate, String sinkId, Long basedOnSnapshotId) {
    this.delegate = delegate;
    this.offsetsKey = OffsetLedger.offsetsKey(sinkId);
    this.basedOnSnapshotId = basedOnSnapshotId;
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
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

  @Override
  public TableMetadata current() {
    return delegate.current();
  }

  @Override
  public TableMetadata refresh() {
    return delegate.refresh();
  }

  @Override
  public FileIO io() {
    return delegate.io();
  }

  @Override
  public EncryptionManager encryption() {
    return delegate.encryption();
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return delegate.metadataFileLocation(fileName);
  }

  @Override
  public LocationProvider locationProvider() {
    return delegate.locationProvider();
  }

  @Override
  public long newSnapshotId() {
    return delegate.newSnapshotId();
  }

  @Override
  public boolean requireStrictCleanup() {
    return delegate.requireStrictCleanup();
  }
}
