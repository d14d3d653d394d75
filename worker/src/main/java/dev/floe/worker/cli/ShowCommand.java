package dev.floe.worker.cli;

import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.catalog.SinkTables;
import dev.floe.worker.config.ConfigException;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.TableNameTemplate;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Prints a sink table's current rows, so a user can look without another engine. */
@Command(name = "show", mixinStandardHelpOptions = true, description = "Show the current rows of a sink's table.")
final class ShowCommand implements Callable<Integer> {
  private static final int WIDEST = 40;

  @Mixin ConfigOption config;
  @Spec CommandSpec command;

  @Option(names = "--limit", defaultValue = "20", description = "Most rows to print (default ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--where", description = "column=value; repeat to require several (values as in SQL literals: 42, paid, 2026-12-01).")
  List<String> where = new ArrayList<>();

  @Option(names = "--table", description = "The table, for a sink whose table name is a template.")
  String tableName;

  @Override
  public Integer call() throws IOException {
    SinkSpec spec = config.load();
    Catalog catalog = CatalogLoader.load("floe", ConfigOption.catalog(spec), SecretResolver.fromEnvironment());
    TableIdentifier id = table(spec, catalog);
    if (!catalog.tableExists(id)) {
      throw new ConfigException("table.name", "table " + id + " does not exist yet", "run the sink first, or check table.name and the catalog");
    }
    Table table = catalog.loadTable(id);
    Expression filter = Expressions.alwaysTrue();
    for (String condition : where) {
      filter = Expressions.and(filter, condition(table, condition));
    }
    List<String> columns = table.schema().columns().stream().map(Types.NestedField::name).toList();
    List<List<String>> rows = new ArrayList<>();
    long matched = 0;
    // The generic reader applies every delete and the filter row by row.
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).where(filter).build()) {
      for (Record r : records) {
        if (matched++ < limit) {
          rows.add(columns.stream().map(c -> cell(r.getField(c))).toList());
        }
      }
    }
    PrintWriter out = command.commandLine().getOut();
    print(columns, rows, out);
    out.printf("%d of %d row(s) of %s%s%n", rows.size(), matched, id, where.isEmpty() ? "" : " where " + String.join(" and ", where));
    out.flush();
    return 0;
  }

  private TableIdentifier table(SinkSpec spec, Catalog catalog) {
    if (tableName != null) {
      return TableIdentifier.parse(tableName);
    }
    if (!TableNameTemplate.isTemplate(spec.table().name())) {
      return TableIdentifier.parse(spec.table().name());
    }
    List<TableIdentifier> tables = SinkTables.existing(catalog, spec);
    if (tables.size() == 1) {
      return tables.get(0);
    }
    throw new ConfigException("--table", "the sink's table name is the template " + spec.table().name() + " and it writes "
        + tables.size() + " table(s)" + (tables.isEmpty() ? "" : ": " + tables), "name one with --table");
  }

  /** {@code column=value}, the value typed as the column is: numbers and booleans here, the rest as Iceberg binds a string literal. */
  static Expression condition(Table table, String condition) {
    int eq = condition.indexOf('=');
    if (eq <= 0) {
      throw new ConfigException("--where", "'" + condition + "' is not column=value", "for example --where status=paid");
    }
    String column = condition.substring(0, eq).trim();
    String value = condition.substring(eq + 1).trim();
    Types.NestedField field = table.schema().findField(column);
    if (field == null) {
      throw new ConfigException("--where", "table " + table.name() + " has no column '" + column + "'",
          "one of " + table.schema().columns().stream().map(Types.NestedField::name).toList());
    }
    try {
      Object typed = switch (field.type().typeId()) {
        case INTEGER -> Integer.valueOf(value);
        case LONG -> Long.valueOf(value);
        case FLOAT -> Float.valueOf(value);
        case DOUBLE -> Double.valueOf(value);
        case BOOLEAN -> Boolean.valueOf(value);
        default -> value; // strings, dates, timestamps, decimals, UUIDs: Iceberg converts the string when it binds
      };
      return "null".equalsIgnoreCase(value) ? Expressions.isNull(column) : Expressions.equal(column, typed);
    } catch (NumberFormatException e) {
      throw new ConfigException("--where", "'" + value + "' is not a " + field.type() + " (column " + column + ")", "for example --where " + column + "=42");
    }
  }

  private static String cell(Object v) {
    String s = v == null ? "null" : v instanceof java.nio.ByteBuffer b ? "0x" + java.util.HexFormat.of().formatHex(bytes(b)) : String.valueOf(v);
    return s.length() > WIDEST ? s.substring(0, WIDEST - 1) + "…" : s;
  }

  private static byte[] bytes(java.nio.ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  private static void print(List<String> columns, List<List<String>> rows, PrintWriter out) {
    int[] width = new int[columns.size()];
    for (int i = 0; i < width.length; i++) {
      width[i] = columns.get(i).length();
      for (List<String> r : rows) {
        width[i] = Math.max(width[i], r.get(i).length());
      }
    }
    line(columns, width, out);
    for (List<String> r : rows) {
      line(r, width, out);
    }
  }

  private static void line(List<String> cells, int[] width, PrintWriter out) {
    StringBuilder b = new StringBuilder(" ");
    for (int i = 0; i < cells.size(); i++) {
      b.append(' ').append(String.format("%-" + width[i] + "s", cells.get(i)));
    }
    out.println(b.toString().stripTrailing());
  }
}
