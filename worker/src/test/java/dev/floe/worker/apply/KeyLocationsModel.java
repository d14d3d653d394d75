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
    List<org.apache.iceberg.DataFile> files = EncodedKeysTest.FILES;
    Map<RowKey, PrimaryKeyIndex.Location> model = new HashMap<>();
    for (Op op : ops) {
      RowKey key = op.key();
      switch (op.kind()) {
        case 0 -> {
          keys.put(key, files.get(op.file()), op.position());
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
    }
    assertThat(keys.size()).isEqualTo(model.size());
    Map<RowKey, PrimaryKeyIndex.Location> all = new HashMap<>();
    keys.forEach(all::put);
    assertThat(all).isEqualTo(model);
    model.forEach((k, l) -> assertThat(keys.get(k)).isEqualTo(l));
  }
}
