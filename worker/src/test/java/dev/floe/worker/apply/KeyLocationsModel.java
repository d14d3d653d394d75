package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.fold.RowKey;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Runs operations on a key store and on a map beside it: the store must answer as the map does, after each one and at the end. */
final class KeyLocationsModel {
  /** One operation: 0 put, 1 remove, 2 drop every key of the file. */
  record Op(int kind, RowKey key, int file, long position) {}

  private KeyLocationsModel() {}

  static void assertBehavesAsAMap(KeyLocations keys, List<Op> ops) {
    assertBehavesAsAMap(keys, ops, null);
  }

  /**
   * As {@link #assertBehavesAsAMap(KeyLocations, List)}, and with a layout (its one key column after
   * another column) half the puts go in by row ({@link KeyLocations#putRow}), and every key is also
   * looked up by row ({@link KeyLocations#packedOfRow}), which must answer as the key does.
   */
  static void assertBehavesAsAMap(KeyLocations keys, List<Op> ops, TableLayout layout) {
    List<org.apache.iceberg.DataFile> files = EncodedKeysTest.FILES;
    Map<RowKey, PrimaryKeyIndex.Location> model = new HashMap<>();
    for (Op op : ops) {
      RowKey key = op.key();
      switch (op.kind()) {
        case 0 -> {
          if (layout != null && op.position() % 2 == 1) {
            keys.putRow(layout, rowOf(layout, key), files.get(op.file()), op.position());
          } else {
            keys.put(key, files.get(op.file()), op.position());
          }
          model.put(key, new PrimaryKeyIndex.Location(files.get(op.file()), op.position()));
        }
        case 1 -> {
          keys.remove(key);
          model.remove(key);
        }
        default -> {
          String gone = files.get(op.file()).location();
          keys.removeFiles(gone::equals);
          model.values().removeIf(l -> l.file().location().equals(gone));
        }
      }
      assertThat(keys.get(key)).isEqualTo(model.get(key));
      if (layout != null) {
        assertThat(keys.packedOfRow(layout, rowOf(layout, key))).isEqualTo(keys.packed(key));
      }
    }
    assertThat(keys.size()).isEqualTo(model.size());
    Map<RowKey, PrimaryKeyIndex.Location> all = new HashMap<>();
    keys.forEach(all::put);
    assertThat(all).isEqualTo(model);
    model.forEach((k, l) -> assertThat(keys.get(k)).isEqualTo(l));
  }

  /** A layout of a column "v" and then the key column "k" of the given type. */
  static TableLayout keyAfterAValue(org.apache.iceberg.types.Type keyType) {
    org.apache.iceberg.Schema schema = new org.apache.iceberg.Schema(List.of(
        org.apache.iceberg.types.Types.NestedField.optional(1, "v", org.apache.iceberg.types.Types.StringType.get()),
        org.apache.iceberg.types.Types.NestedField.required(2, "k", keyType)), java.util.Set.of(2));
    return new TableLayout(schema, org.apache.iceberg.PartitionSpec.unpartitioned(),
        new dev.floe.worker.config.TableSpec(null, "a.b", List.of("k"), null, 3, null, null, null));
  }

  private static Object[] rowOf(TableLayout layout, RowKey key) {
    Object[] row = layout.keyRow(key);
    row[0] = "a value";
    return row;
  }
}
