package dev.floe.worker.apply;

import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * Table operations that refuse a commit once another snapshot or schema has landed since the state
 * a schema change was planned on. The change records "files at or below sequence number S lack the
 * new column"; Iceberg would retry a conflicting transaction onto the new state with that S
 * unchanged, leaving the files of the snapshot in between unfilled (or add a column another worker
 * just added). Refused, the caller plans again from the new state.
 */
final class SequenceGuardedOperations implements TableOperations {
  private final TableOperations delegate;
  private final long expectedLastSequenceNumber;
  private final int expectedSchemaId;

  SequenceGuardedOperations(TableOperations delegate, TableMetadata plannedOn) {
    this.delegate = delegate;
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
