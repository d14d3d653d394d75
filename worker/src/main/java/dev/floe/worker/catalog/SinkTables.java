package dev.floe.worker.catalog;

import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.config.ConfigException;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.TableNameTemplate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;

/**
 * The tables a sink writes, for the commands that act on them after the fact ({@code floe offsets},
 * {@code floe compact}): its one table, or every table its name template can produce that holds the
 * sink's offsets (so tables of other writers that merely match the template are left alone).
 */
public final class SinkTables {
  private SinkTables() {}

  public static List<TableIdentifier> existing(Catalog catalog, SinkSpec spec) {
    String name = spec.table().name();
    if (!TableNameTemplate.isTemplate(name)) {
      TableIdentifier id = TableIdentifier.parse(name);
      return catalog.tableExists(id) ? List.of(id) : List.of();
    }
    Pattern names = TableNameTemplate.names(name);
    List<TableIdentifier> out = new ArrayList<>();
    for (Namespace ns : namespaces(catalog, name)) {
      for (TableIdentifier id : tablesIn(catalog, ns)) {
        if (names.matcher(id.toString()).matches()
            && !OffsetLedger.read(catalog.loadTable(id), spec.sinkId()).isEmpty()) {
          out.add(id);
        }
      }
    }
    out.sort((a, b) -> a.toString().compareTo(b.toString()));
    return out;
  }

  private static List<TableIdentifier> tablesIn(Catalog catalog, Namespace ns) {
    try {
      return catalog.listTables(ns);
    } catch (NoSuchNamespaceException e) {
      return List.of(); // no table routed there yet
    }
  }

  /** The namespaces the template's tables can live in: its fixed leading levels, then every child level it varies over. */
  private static List<Namespace> namespaces(Catalog catalog, String template) {
    String[] levels = template.substring(0, template.lastIndexOf('.')).split("\\.");
    int fixed = 0;
    while (fixed < levels.length && !TableNameTemplate.isTemplate(levels[fixed])) {
      fixed++;
    }
    Namespace start = Namespace.of(Arrays.copyOf(levels, fixed));
    List<Namespace> out = new ArrayList<>();
    if (fixed == levels.length) {
      out.add(start);
      return out;
    }
    if (!(catalog instanceof SupportsNamespaces namespaces)) {
      throw new ConfigException("table.name", "the catalog cannot list namespaces, so the tables of '" + template
          + "' cannot be found; keep placeholders out of the namespace", "lake.{schema}_{table}");
    }
    collect(namespaces, start, levels.length - fixed, out);
    return out;
  }

  private static void collect(SupportsNamespaces catalog, Namespace parent, int depth, List<Namespace> out) {
    if (depth == 0) {
      out.add(parent);
      return;
    }
    for (Namespace child : catalog.listNamespaces(parent)) {
      collect(catalog, child, depth - 1, out);
    }
  }
}
