package dev.floe.worker.apply;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.parquet.Parquet;

/**
 * The writers of a table's Parquet data files: the table's properties (codec, page and row-group
 * sizes) and metrics settings, as Iceberg's {@code GenericFileWriterFactory} applies them, with
 * {@link PackedRowWriter} encoding the rows. Made from the table on the thread that owns it (its
 * properties and metrics settings are read then), usable on any. Writes data files only.
 */
public final class DataFileWriters implements FileWriterFactory<Record> {
  private final Schema schema;
  private final Map<String, String> properties;
  private final MetricsConfig metrics;

  public DataFileWriters(Table table, Schema schema) {
    this.schema = schema;
    this.properties = Map.copyOf(table.properties());
    this.metrics = MetricsConfig.forTable(table);
  }

  @Override
  public DataWriter<Record> newDataWriter(EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    try {
      return Parquet.writeData(file)
          .schema(schema)
          .setAll(properties)
          .metricsConfig(metrics)
          .createWriterFunc(PackedRowWriter::create)
          .withSpec(spec)
          .withPartition(partition)
          .withKeyMetadata(file.keyMetadata())
          .overwrite()
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public EqualityDeleteWriter<Record> newEqualityDeleteWriter(EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    throw new UnsupportedOperationException("data files only: deletes are written by Iceberg's GenericFileWriterFactory");
  }

  @Override
  public PositionDeleteWriter<Record> newPositionDeleteWriter(EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    throw new UnsupportedOperationException("data files only: deletes are written by Iceberg's GenericFileWriterFactory");
  }
}
