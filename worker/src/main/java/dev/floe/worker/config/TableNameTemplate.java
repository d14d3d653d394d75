package dev.floe.worker.config;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A table name with placeholders, so that one sink mirrors many source tables: each Debezium topic
 * goes to the table its name resolves to. {@code {schema}} and {@code {table}} are the last two
 * segments of the topic (Debezium names topics {@code <prefix>.<schema>.<table>}); {@code {topic}}
 * is the whole topic. Characters other than letters, digits and {@code _} become {@code _}.
 */
public final class TableNameTemplate {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{(schema|table|topic)}");
  private static final Pattern BRACED = Pattern.compile("\\{[^{}]*}");
  private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9_]");

  private TableNameTemplate() {}

  /** Whether the name routes topics to several tables. */
  /** The first {@code {...}} in the name that is not a placeholder (a typo such as {@code {scheme}}), or null. */
  public static String unknownPlaceholder(String name) {
    if (name == null) {
      return null;
    }
    Matcher m = BRACED.matcher(name);
    while (m.find()) {
      if (!PLACEHOLDER.matcher(m.group()).matches()) {
        return m.group();
      }
    }
    return null;
  }

  public static boolean isTemplate(String name) {
    return name != null && PLACEHOLDER.matcher(name).find();
  }

  /**
   * The table a topic's records go to.
   *
   * @throws ConfigException when the template needs a schema and table the topic's name lacks
   */
  public static String resolve(String template, String topic) {
    List<String> segments = List.of(topic.split("\\."));
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String value = switch (m.group(1)) {
        case "topic" -> topic;
        case "schema", "table" -> {
          if (segments.size() < 3) {
            throw new ConfigException("table.name",
                "cannot route topic '" + topic + "': " + m.group() + " needs a topic named <prefix>.<schema>.<table>, as Debezium names them",
                "use {topic}, or a source.topicPattern that matches only Debezium's table topics");
          }
          yield segments.get(segments.size() - ("schema".equals(m.group(1)) ? 2 : 1));
        }
        default -> throw new IllegalStateException(m.group());
      };
      m.appendReplacement(out, Matcher.quoteReplacement(UNSAFE.matcher(value).replaceAll("_")));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Matches every table name (namespace.table) the template can produce. */
  public static Pattern names(String template) {
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder regex = new StringBuilder();
    int last = 0;
    while (m.find()) {
      regex.append(Pattern.quote(template.substring(last, m.start())));
      regex.append("[A-Za-z0-9_]+");
      last = m.end();
    }
    regex.append(Pattern.quote(template.substring(last)));
    return Pattern.compile(regex.toString());
  }
}
