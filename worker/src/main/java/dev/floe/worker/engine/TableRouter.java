package dev.floe.worker.engine;

import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.TableNameTemplate;
import dev.floe.worker.decode.ChangeDecoders;
import dev.floe.worker.decode.RawRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which table, and so which engine, a topic's records go to: the sink's one table, or, when the
 * table name is a {@link TableNameTemplate}, the table the topic's name resolves to. Each table has
 * its own engine and commits on its own, with the offsets of the topics routed to it.
 */
public final class TableRouter {
  private static final Logger LOG = LoggerFactory.getLogger(TableRouter.class);

  private final String template;
  private final Function<String, SinkEngine> engines;
  private final Map<String, SinkEngine> byTopic = new HashMap<>();
  private final Map<String, SinkEngine> byTable = new LinkedHashMap<>();

  private TableRouter(String template, Function<String, SinkEngine> engines) {
    this.template = template;
    this.engines = engines;
  }

  /** Routes by the sink's table name: one table, or one per topic when the name is a template. */
  public static TableRouter of(SinkSpec spec, Catalog catalog) {
    return of(spec, catalog, ChangeDecoders.of(spec.source(), SecretResolver.fromEnvironment()));
  }

  /** As {@link #of(SinkSpec, Catalog)}, every table's engine decoding with {@code decoders} (one registry cache for all). */
  public static TableRouter of(SinkSpec spec, Catalog catalog, ChangeDecoders decoders) {
    return of(spec, () -> catalog, decoders);
  }

  /** As {@link #of(SinkSpec, Catalog, ChangeDecoders)}, the engines asking for the catalog only when they first load their tables. */
  public static TableRouter of(SinkSpec spec, Supplier<Catalog> catalog, ChangeDecoders decoders) {
    if (!TableNameTemplate.isTemplate(spec.table().name())) {
      return single(new SinkEngine(spec, catalog, decoders));
    }
    return new TableRouter(spec.table().name(), table -> new SinkEngine(spec.forTable(table), catalog, decoders));
  }

  /** Every topic to one engine. */
  public static TableRouter single(SinkEngine engine) {
    return new TableRouter(null, table -> engine);
  }

  /**
   * The engine of the table this topic goes to.
   *
   * @throws dev.floe.worker.config.ConfigException when the template cannot route the topic
   */
  public SinkEngine engineFor(String topic) {
    SinkEngine engine = byTopic.get(topic);
    if (engine == null) {
      String table = template == null ? "" : TableNameTemplate.resolve(template, topic);
      engine = byTable.computeIfAbsent(table, engines);
      byTopic.put(topic, engine);
      if (template != null) {
        LOG.info("routing topic {} to table {}", topic, table);
      }
    }
    return engine;
  }

  /** Whether topics go to tables of their own (a name template), rather than all to one table. */
  public boolean routesManyTables() {
    return template != null;
  }

  /** The engines this router has opened so far, one per table. */
  public java.util.Collection<SinkEngine> engines() {
    return java.util.List.copyOf(byTable.values());
  }

  /** A batch split by table, each part in the batch's order. */
  public Map<SinkEngine, List<RawRecord>> split(List<RawRecord> records) {
    Map<SinkEngine, List<RawRecord>> out = new LinkedHashMap<>();
    String topic = null;
    List<RawRecord> part = null;
    for (RawRecord r : records) {
      if (!r.topic().equals(topic)) { // records come in runs of one partition: one lookup per run
        topic = r.topic();
        part = out.computeIfAbsent(engineFor(topic), e -> new ArrayList<>());
      }
      part.add(r);
    }
    return out;
  }
}
