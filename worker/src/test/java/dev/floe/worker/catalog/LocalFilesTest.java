package dev.floe.worker.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.apply.EqualityDeltaWriter;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.SecretResolver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.hadoop.Util;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local warehouse's file system: Hadoop's, checksums kept, permissions set without a process per file. */
class LocalFilesTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()), Types.NestedField.optional(2, "name", Types.StringType.get()));

  @TempDir
  Path dir;

  @Test
  void aLocalWarehouseWritesThroughItWhateverFileSystemWasMadeFirst() throws Exception {
    // given a plain local file system already made and cached by other code in this JVM
    FileSystem cached = FileSystem.get(dir.toUri(), new Configuration());
    assertThat(cached).isNotInstanceOf(LocalFiles.class);

    // when the embedded default warehouse writes a table
    Catalog catalog = CatalogLoader.load("floe", CatalogSpec.local(dir.resolve("wh").toString()), SecretResolver.fromEnvironment());
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
    Table table = catalog.createTable(TableIdentifier.of("db", "t"), SCHEMA);
    Record row = GenericRecord.create(SCHEMA);
    row.setField("id", 1L);
    row.setField("name", "one");
    DataWriter<Record> writer = EqualityDeltaWriter.dataFileWriters(table, SCHEMA).newDataWriter(
        EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(table.locationProvider().newDataLocation("part-0.parquet"))),
        table.spec(), null);
    try (writer) {
      writer.write(row);
    }
    DataFile file = writer.toDataFile();
    table.newAppend().appendFile(file).commit();

    // then its files go through LocalFiles, readable by all as Hadoop's umask has them, checksummed beside
    Configuration conf = ((HadoopFileIO) table.io()).conf();
    assertThat(Util.getFs(new org.apache.hadoop.fs.Path(file.location()), conf)).isInstanceOf(LocalFiles.class);
    Path data = Path.of(java.net.URI.create(file.location()).getPath());
    assertThat(Files.getPosixFilePermissions(data)).isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
    assertThat(data.resolveSibling("." + data.getFileName() + ".crc")).exists();
    try (Stream<Path> metadata = Files.list(Path.of(java.net.URI.create(table.location()).getPath()).resolve("metadata"))) {
      assertThat(metadata.filter(p -> p.toString().endsWith(".metadata.json")).count()).isEqualTo(2);
    }
    assertThat(catalog.loadTable(TableIdentifier.of("db", "t")).currentSnapshot().addedDataFiles(table.io())).hasSize(1);
  }

  @Test
  void permissionsAreSetAsHadoopWouldSetThem() throws IOException {
    // given a file and Hadoop's local file system without its shell
    Path file = Files.createFile(dir.resolve("f"));
    LocalFiles.WithoutShell fs = new LocalFiles.WithoutShell();
    fs.initialize(dir.toUri(), new Configuration());

    // when permissions are set, then the file has exactly them
    Map<String, String> modes = Map.of("640", "rw-r-----", "600", "rw-------", "755", "rwxr-xr-x", "444", "r--r--r--",
        "000", "---------", "777", "rwxrwxrwx", "751", "rwxr-x--x");
    for (Map.Entry<String, String> mode : modes.entrySet()) {
      fs.setPermission(new org.apache.hadoop.fs.Path(file.toUri()), new FsPermission(mode.getKey()));
      assertThat(Files.getPosixFilePermissions(file)).as(mode.getKey()).isEqualTo(PosixFilePermissions.fromString(mode.getValue()));
    }
  }
}
