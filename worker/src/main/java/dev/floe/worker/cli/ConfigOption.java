package dev.floe.worker.cli;

import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.SinkConfigLoader;
import dev.floe.worker.config.SinkSpec;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --config} option shared by the commands that act on one sink. */
final class ConfigOption {
  @Option(names = {"-c", "--config"}, required = true, description = "The sink config, YAML or JSON.")
  Path config;

  SinkSpec load() {
    return SinkConfigLoader.load(config);
  }

  /** The sink's catalog; without one, the embedded default in ./floe-warehouse. */
  static CatalogSpec catalog(SinkSpec spec) {
    return spec.table().catalog() == null ? CatalogSpec.local("floe-warehouse") : spec.table().catalog();
  }
}
