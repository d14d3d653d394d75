package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.CompactionSpec;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.maintain.Compactor;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersScripts;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.model.Step;
import dev.floe.worker.testing.LocalWarehouse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.nio.ByteBuffer;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinReader;
import org.apache.iceberg.puffin.PuffinWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The primary-key index persisted beside the table: loaded on restart, caught up, never trusted blindly. */
class PrimaryKeyIndexTest {
  @TempDir Path dir;

  private final OrdersModel model = new OrdersModel();
  private final OrdersSource source = new OrdersSource();
  private final List<Step> steps = OrdersScripts.steps().filter(s -> !(s instanceof Step.Truncate)).list().ofSize(400).sample();

  @Test
  void aRestartedWorkerLoadsThePersistedIndexAndCatchesUpOverLaterCommitsAndACompaction() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), "pk.orders", 3, false, WriteMode.POSITION_DELETES);
    SinkEngine first = new SinkEngine(sink, warehouse.catalog());
    for (int b = 0; b < 4; b++) {
      first.apply(source.records(steps.subList(b * 50, (b + 1) * 50), model), DeadLetters.DISCARD);
    }
    assertThat(first.indexBuildsAndLoads()).containsExactly(0, 0); // indexed from the first commit's rows, then kept current
    new Compactor(first.table(), sink.sinkId(), new CompactionSpec(null, null, 2, "5d", 10, "5d", null, true, false, false, false)).run();

    SinkEngine restarted = new SinkEngine(sink, warehouse.catalog());
    for (int b = 4; b < 8; b++) {
      restarted.apply(source.records(steps.subList(b * 50, (b + 1) * 50), model), DeadLetters.DISCARD);
    }

    assertThat(restarted.indexBuildsAndLoads()).containsExactly(0, 1); // loaded the stale copy and caught up
    assertThat(ScriptPlayer.actual(restarted.table())).isEqualTo(model.expected());
  }

  @Test
  void theIndexPersistedEveryTwentyCommitsIsWrittenBesideTheBatchesAndAttachedToItsSnapshot() {
    // given a worker that made 21 commits: the first persists its index at once, the 21st (20 later) on another thread
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), "pk.ahead", 3, false, WriteMode.POSITION_DELETES);
    SinkEngine first = new SinkEngine(sink, warehouse.catalog());
    int b = 0;
    while (first.table() == null || java.util.stream.StreamSupport.stream(first.table().snapshots().spliterator(), false).count() < 21) {
      first.apply(source.records(steps.subList(b * 10, (b + 1) * 10), model), DeadLetters.DISCARD);
      b++;
    }
    long due = first.table().currentSnapshot().snapshotId();
    assertThat(first.table().statisticsFiles()).extracting(StatisticsFile::snapshotId).doesNotContain(due);

    // when the worker stops (as it does before scaling to zero)
    first.persistIndexIfChanged();

    // then that copy is attached to the snapshot it was taken at, and a restarted worker loads it without catching up
    first.table().refresh();
    assertThat(first.table().statisticsFiles()).extracting(StatisticsFile::snapshotId).contains(due);
    SinkEngine restarted = new SinkEngine(sink, warehouse.catalog());
    restarted.apply(source.records(steps.subList(b * 10, b * 10 + 20), model), DeadLetters.DISCARD);
    assertThat(restarted.indexBuildsAndLoads()).containsExactly(0, 1);
    assertThat(ScriptPlayer.actual(restarted.table())).isEqualTo(model.expected());
  }

  @Test
  void aCorruptedPersistedIndexIsDetectedAndRebuilt() throws Exception {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), "pk.corrupt", 2, true, WriteMode.POSITION_DELETES);
    SinkEngine first = afterThreeBatches(sink, warehouse);
    List<StatisticsFile> persisted = first.table().statisticsFiles();
    assertThat(persisted).isNotEmpty();
    for (StatisticsFile f : persisted) {
      Path file = Path.of(f.path().replaceFirst("^file:", ""));
      byte[] bytes = Files.readAllBytes(file);
      bytes[bytes.length / 2] ^= 0x5A; // one flipped byte inside the blob
      Files.write(file, bytes);
    }

    SinkEngine restarted = new SinkEngine(sink, warehouse.catalog());
    restarted.apply(source.records(steps.subList(150, 250), model), DeadLetters.DISCARD);

    assertThat(restarted.indexBuildsAndLoads()).containsExactly(1, 0);
    assertThat(ScriptPlayer.actual(restarted.table())).isEqualTo(model.expected());
  }

  @Test
  void aPersistedIndexOfTheFormerVersionWithoutMergeStateIsRebuiltNotRead() throws Exception {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), "pk.v1", 3, false, WriteMode.POSITION_DELETES);
    SinkEngine first = afterThreeBatches(sink, warehouse);
    Table table = first.table();
    for (StatisticsFile f : List.copyOf(table.statisticsFiles())) {
      relabel(table, f, "floe-primary-key-index-v1"); // as a worker of the former version left it
    }

    SinkEngine restarted = new SinkEngine(sink, warehouse.catalog());
    restarted.apply(source.records(steps.subList(150, 250), model), DeadLetters.DISCARD);

    assertThat(restarted.indexBuildsAndLoads()).containsExactly(1, 0);
    assertThat(ScriptPlayer.actual(restarted.table())).isEqualTo(model.expected());
  }

  @Test
  void aPersistedIndexWhoseMergeStateHoldsOtherColumnsIsRebuilt() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), "pk.rules", 3, false, WriteMode.POSITION_DELETES);
    SinkEngine first = afterThreeBatches(sink, warehouse);
    // the same table, now configured with hi summed instead of kept as a maximum
    java.util.Map<String, dev.floe.worker.fold.MergeRule> rules = new java.util.HashMap<>(OrdersTable.RULES);
    rules.put("hi", dev.floe.worker.fold.MergeRule.LAST);
    SinkSpec changed = new SinkSpec(sink.source(), new dev.floe.worker.config.TableSpec(warehouse.spec(), "pk.rules", List.of(), List.of(),
        3, WriteMode.POSITION_DELETES, rules, java.util.Map.of()), null, null, null);

    SinkEngine restarted = new SinkEngine(changed, warehouse.catalog());
    restarted.apply(source.records(steps.subList(150, 200), model), DeadLetters.DISCARD);

    assertThat(restarted.indexBuildsAndLoads()).containsExactly(1, 0);
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"long", "int", "uuid"})
  void aPersistedIndexOfAnIntLongOrUuidKeyLoadsBackEveryKeyAtItsLocation(String keyType) {
    // given a table of two data files whose rows have keys of both signs, and its index persisted
    TwoFiles given = twoFiles(keyType);
    PrimaryKeyIndex built = PrimaryKeyIndex.build(given.table(), given.snapshot(), given.layout());
    PersistedIndex.save(given.table(), built, given.layout());
    given.table().refresh();

    // when a worker loads it
    PrimaryKeyIndex loaded = PersistedIndex.loadNewest(given.table(), given.snapshot(), given.layout());

    // then every key is where the built index has it
    assertThat(loaded).isNotNull();
    assertThat(loaded.size()).isEqualTo(1_000);
    built.forEach((key, location) -> {
      PrimaryKeyIndex.Location l = loaded.get(key);
      assertThat(l).as("key %s", key).isNotNull();
      assertThat(l.file().location()).isEqualTo(location.file().location());
      assertThat(l.position()).isEqualTo(location.position());
    });
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"long", "uuid", "string"})
  void aPersistedIndexNamingAFileThatIsNotLiveIsRefused(String keyType) {
    // given an index of a two-file table, encoded, and the table's live files without one of them
    TwoFiles given = twoFiles(keyType);
    PrimaryKeyIndex built = PrimaryKeyIndex.build(given.table(), given.snapshot(), given.layout());
    byte[] payload = PersistedIndex.encode(built, given.layout());
    java.util.Map<String, org.apache.iceberg.DataFile> live = new java.util.HashMap<>(LiveDataFiles.of(given.table(), given.snapshot()));
    String gone = live.keySet().iterator().next();
    live.remove(gone);

    // when it is decoded against them, then it is refused (the caller rebuilds), naming the file
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> PersistedIndex.decode(payload, given.snapshot(), given.layout(), () -> live, 0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not live").hasMessageContaining(gone);
    // and against all of them it loads every key
    PrimaryKeyIndex loaded = PersistedIndex.decode(payload, given.snapshot(), given.layout(),
        () -> LiveDataFiles.of(given.table(), given.snapshot()), 0);
    assertThat(loaded.size()).isEqualTo(1_000);
    built.forEach((key, location) -> {
      assertThat(loaded.get(key).file().location()).as("key %s", key).isEqualTo(location.file().location());
      assertThat(loaded.get(key).position()).as("key %s", key).isEqualTo(location.position());
    });
  }

  @Test
  void theLiveDataFilesReadFromTheManifestsAreTheFilesAScanPlansAtEverySnapshot() throws Exception {
    // given a table of several commits with position deletes, then compacted (files replaced)
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), "pk.live", 3, false, WriteMode.POSITION_DELETES);
    SinkEngine engine = new SinkEngine(sink, warehouse.catalog());
    for (int b = 0; b < 4; b++) {
      engine.apply(source.records(steps.subList(b * 50, (b + 1) * 50), model), DeadLetters.DISCARD);
    }
    new Compactor(engine.table(), sink.sinkId(), new CompactionSpec(null, null, 2, "5d", 10, "5d", null, true, false, false, false)).run();
    Table table = engine.table();
    table.refresh();

    // when each snapshot's live data files are read from its data manifests, then they are the files a scan plans, as it holds them
    int snapshots = 0;
    for (org.apache.iceberg.Snapshot s : table.snapshots()) {
      java.util.Map<String, org.apache.iceberg.DataFile> planned = new java.util.HashMap<>();
      try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks = table.newScan().useSnapshot(s.snapshotId()).planFiles()) {
        tasks.forEach(t -> planned.put(t.file().location(), t.file()));
      }
      java.util.Map<String, org.apache.iceberg.DataFile> read = LiveDataFiles.of(table, s.snapshotId());
      assertThat(read.keySet()).as("snapshot %d", s.snapshotId()).isEqualTo(planned.keySet());
      read.forEach((location, f) -> {
        org.apache.iceberg.DataFile p = planned.get(location);
        assertThat(List.of(f.specId(), f.recordCount(), f.fileSizeInBytes(), f.dataSequenceNumber(), f.fileSequenceNumber(), f.partition()))
            .as("file %s", location)
            .isEqualTo(List.of(p.specId(), p.recordCount(), p.fileSizeInBytes(), p.dataSequenceNumber(), p.fileSequenceNumber(), p.partition()));
        assertThat(f.firstRowId()).isEqualTo(p.firstRowId());
      });
      snapshots++;
    }
    assertThat(snapshots).isGreaterThan(4);
  }

  @Test
  void aPersistedIndexIsReadFromTheRangeTheTableNamesAndAnOlderCopyThroughItsFooter() throws Exception {
    // given a worker whose index was persisted: the table's metadata names where the blob's bytes are
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), "pk.range", 3, false, WriteMode.POSITION_DELETES);
    SinkEngine first = afterThreeBatches(sink, warehouse);
    Table table = first.table();
    assertThat(table.statisticsFiles()).isNotEmpty().allSatisfy(f -> assertThat(f.blobMetadata().get(0).properties())
        .containsKeys(PersistedIndex.OFFSET_PROPERTY, PersistedIndex.LENGTH_PROPERTY));
    SinkEngine second = new SinkEngine(sink, warehouse.catalog());
    second.apply(source.records(steps.subList(150, 200), model), DeadLetters.DISCARD);
    assertThat(second.indexBuildsAndLoads()).containsExactly(0, 1);

    // when its copies are rewritten as a worker of the former version wrote them (no range named)
    table.refresh();
    for (StatisticsFile f : List.copyOf(table.statisticsFiles())) {
      relabel(table, f, PersistedIndex.BLOB_TYPE);
    }
    assertThat(table.statisticsFiles()).allSatisfy(f -> assertThat(f.blobMetadata().get(0).properties())
        .doesNotContainKey(PersistedIndex.OFFSET_PROPERTY));
    SinkEngine third = new SinkEngine(sink, warehouse.catalog());
    third.apply(source.records(steps.subList(200, 250), model), DeadLetters.DISCARD);

    // then both load it rather than rebuild, and the table equals the source
    assertThat(third.indexBuildsAndLoads()).containsExactly(0, 1);
    assertThat(ScriptPlayer.actual(third.table())).isEqualTo(model.expected());
  }

  /** A worker that applied the script's first three batches of 50 steps to the sink's table. */
  private SinkEngine afterThreeBatches(SinkSpec sink, LocalWarehouse warehouse) {
    SinkEngine engine = new SinkEngine(sink, warehouse.catalog());
    for (int b = 0; b < 3; b++) {
      engine.apply(source.records(steps.subList(b * 50, (b + 1) * 50), model), DeadLetters.DISCARD);
    }
    return engine;
  }

  /** A table of two data files of 500 rows each, keyed by one column of a type, and its layout. */
  private record TwoFiles(Table table, TableLayout layout, long snapshot) {}

  private TwoFiles twoFiles(String keyType) {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    org.apache.iceberg.types.Type type = switch (keyType) {
      case "int" -> org.apache.iceberg.types.Types.IntegerType.get();
      case "uuid" -> org.apache.iceberg.types.Types.UUIDType.get();
      case "string" -> org.apache.iceberg.types.Types.StringType.get();
      default -> org.apache.iceberg.types.Types.LongType.get();
    };
    org.apache.iceberg.Schema schema = new org.apache.iceberg.Schema(List.of(
        org.apache.iceberg.types.Types.NestedField.required(1, "id", type),
        org.apache.iceberg.types.Types.NestedField.optional(2, "note", org.apache.iceberg.types.Types.StringType.get())), java.util.Set.of(1));
    org.apache.iceberg.catalog.TableIdentifier name = org.apache.iceberg.catalog.TableIdentifier.parse("pk.keys_" + keyType);
    warehouse.catalog().buildTable(name, schema).withProperty("format-version", "3").create();
    Table table = warehouse.catalog().loadTable(name);
    TableLayout layout = TableLayout.of(table, new dev.floe.worker.config.TableSpec(warehouse.spec(), name.toString(), List.of(), List.of(),
        3, WriteMode.POSITION_DELETES, java.util.Map.of(), java.util.Map.of()));
    for (int file = 0; file < 2; file++) {
      List<Object[]> rows = new java.util.ArrayList<>();
      for (long i = 0; i < 500; i++) {
        long id = (file * 500 + i) * (i % 2 == 0 ? 1 : -1) * (keyType.equals("int") ? 2_000_000L : 9_000_000_000_000L);
        Object key = switch (keyType) {
          case "int" -> (int) id;
          case "uuid" -> new java.util.UUID(id, -id ^ 0x0123_4567_89ab_cdefL); // halves of both signs
          case "string" -> "key-" + id;
          default -> id;
        };
        rows.add(new Object[] {key, "n"});
      }
      org.apache.iceberg.AppendFiles append = table.newAppend();
      EqualityDeltaWriter.writeRows(table, layout, rows).forEach(append::appendFile);
      append.commit();
    }
    return new TwoFiles(table, layout, table.currentSnapshot().snapshotId());
  }

  @Test
  void storedRowsAskedInAnOrderAreAnsweredInItWithEachKeysPlaceAcrossBothCoresLookups() {
    // given a table of 60,000 rows with uuid keys in two files, and its index
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    org.apache.iceberg.Schema schema = new org.apache.iceberg.Schema(List.of(
        org.apache.iceberg.types.Types.NestedField.required(1, "id", org.apache.iceberg.types.Types.UUIDType.get()),
        org.apache.iceberg.types.Types.NestedField.optional(2, "note", org.apache.iceberg.types.Types.StringType.get())), java.util.Set.of(1));
    org.apache.iceberg.catalog.TableIdentifier name = org.apache.iceberg.catalog.TableIdentifier.parse("pk.in_order");
    warehouse.catalog().buildTable(name, schema).withProperty("format-version", "3").create();
    Table table = warehouse.catalog().loadTable(name);
    TableLayout layout = TableLayout.of(table, new dev.floe.worker.config.TableSpec(warehouse.spec(), name.toString(), List.of(), List.of(),
        3, WriteMode.POSITION_DELETES, java.util.Map.of(), java.util.Map.of()));
    java.util.Random random = new java.util.Random(7);
    List<java.util.UUID> held = new java.util.ArrayList<>();
    for (int file = 0; file < 2; file++) {
      List<Object[]> rows = new java.util.ArrayList<>();
      for (int i = 0; i < 30_000; i++) {
        java.util.UUID id = new java.util.UUID(random.nextLong(), random.nextLong());
        held.add(id);
        rows.add(new Object[] {id, "note-" + id});
      }
      org.apache.iceberg.AppendFiles append = table.newAppend();
      EqualityDeltaWriter.writeRows(table, layout, rows).forEach(append::appendFile);
      append.commit();
    }
    PrimaryKeyIndex index = PrimaryKeyIndex.build(table, table.currentSnapshot().snapshotId(), layout);

    // when the stored rows of 120,000 keys are asked in a shuffled order (more than one core's share
    // of lookups): every held key, every third one needing its note and the rest only located, and
    // 60,000 keys never written
    List<dev.floe.worker.fold.RowKey> asked = new java.util.ArrayList<>();
    held.forEach(id -> asked.add(new dev.floe.worker.fold.RowKey(new Object[] {id})));
    for (int i = 0; i < 60_000; i++) {
      asked.add(new dev.floe.worker.fold.RowKey(new Object[] {new java.util.UUID(random.nextLong(), random.nextLong())}));
    }
    java.util.Collections.shuffle(asked, random);
    dev.floe.worker.fold.RowKey[] keys = asked.toArray(new dev.floe.worker.fold.RowKey[0]);
    assertThat(keys.length).isGreaterThan(2 * TwoCores.FROM);
    boolean[] note = {false, true};
    boolean[][] needs = new boolean[keys.length][];
    for (int i = 0; i < keys.length; i++) {
      needs[i] = i % 3 == 0 ? note : ChangeResolver.LOCATE_ONLY;
    }
    ChangeResolver.FoundInOrder found = index.storedInOrder(table, keys, needs, layout);

    // then each answer stands at its key's place in the order: a held key's location and row (its
    // note where needed), nothing for a key never written
    java.util.Set<java.util.UUID> written = new java.util.HashSet<>(held);
    for (int i = 0; i < keys.length; i++) {
      java.util.UUID id = (java.util.UUID) keys[i].get(0);
      if (!written.contains(id)) {
        assertThat(found.places()[i]).as("key %s", id).isEqualTo(-1);
        assertThat(found.rows()[i]).as("key %s", id).isNull();
        continue;
      }
      PrimaryKeyIndex.Location at = index.get(keys[i]);
      assertThat(PrimaryKeyIndex.position(found.places()[i])).as("key %s", id).isEqualTo(at.position());
      assertThat(index.file(found.places()[i]).location()).as("key %s", id).isEqualTo(at.file().location());
      assertThat(found.rows()[i]).as("key %s", id).containsExactly(id, needs[i] == note ? "note-" + id : null);
    }
  }

  /** Rewrites a persisted index's statistics file with its blob under another type name. */
  private static void relabel(Table table, StatisticsFile f, String type) throws Exception {
    ByteBuffer payload;
    BlobMetadata meta;
    try (PuffinReader reader = Puffin.read(table.io().newInputFile(f.path())).withFileSize(f.fileSizeInBytes()).build()) {
      meta = reader.fileMetadata().blobs().get(0);
      payload = reader.readAll(List.of(meta)).iterator().next().second();
    }
    String path = f.path().replace(".puffin", "-relabelled.puffin");
    try (PuffinWriter writer = Puffin.write(table.io().newOutputFile(path)).createdBy("test").build()) {
      writer.add(new Blob(type, meta.inputFields(), meta.snapshotId(), meta.sequenceNumber(), payload));
      writer.finish();
      table.updateStatistics().setStatistics(new GenericStatisticsFile(f.snapshotId(), path, writer.fileSize(), writer.footerSize(),
          GenericBlobMetadata.from(writer.writtenBlobsMetadata()))).commit();
    }
  }
}
