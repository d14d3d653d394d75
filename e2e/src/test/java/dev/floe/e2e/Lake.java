package dev.floe.e2e;

import dev.floe.worker.config.CatalogSpec;
import java.nio.file.Path;

/** Where a pipeline's tables live: a catalog and its storage, started by the test. */
interface Lake extends AutoCloseable {
  CatalogSpec catalog();

  /** Local files and the SQLite catalog: the embedded default. */
  static Lake local(Path dir) {
    CatalogSpec spec = CatalogSpec.local(dir.resolve("warehouse").toString());
    return new Lake() {
      @Override
      public CatalogSpec catalog() {
        return spec;
      }

      @Override
      public void close() {}
    };
  }
}
