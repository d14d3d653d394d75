package dev.floe.worker.config;

import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Map;

/** The Kafka side of a sink: brokers, the change topics and the consumer group. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@ValidationRule(value = "(has(self.topics) && size(self.topics) > 0) != (has(self.topicPattern) && size(self.topicPattern) > 0)",
    message = "give exactly one of topics and topicPattern")
@ValidationRule(value = "!has(self.format) || self.format != 'avro' || has(self.schemaRegistry)",
    message = "format: avro needs schemaRegistry (its url): Avro records carry only a schema id")
public record SourceSpec(
    @JsonPropertyDescription("Kafka bootstrap servers, host:port[,host:port].") @Required String bootstrapServers,
    @JsonPropertyDescription("Change topics to read; either this or topicPattern.") List<String> topics,
    @JsonPropertyDescription("A regular expression of change topics to read; either this or topics.")
        String topicPattern,
    @JsonPropertyDescription(
            "Consumer group; also the identity under which the sink records its offsets in the table.")
        @Required String groupId,
    @JsonPropertyDescription("Name of a Secret whose keys are extra Kafka client properties (SASL, TLS).")
        String kafkaSecretRef,
    @JsonPropertyDescription("Extra Kafka consumer properties; values may be ${env:NAME} or ${file:/path}.")
        Map<String, String> properties,
    @JsonPropertyDescription("Where to start a partition the table holds no offset for: group (the consumer group's"
            + " committed offset), earliest or latest. Unset: earliest, but a table holding nothing while the group has"
            + " committed offsets (a dropped or re-created table) is refused rather than silently skipping what the group read.")
        StartFrom startFrom,
    @JsonPropertyDescription("How keys and values are written: json (Kafka Connect's JsonConverter, the default) or avro"
            + " (Avro with a schema registry, in the Confluent wire format or Apicurio's headers).")
        SourceFormat format,
    @JsonPropertyDescription("The schema registry Avro writer schemas are fetched from; required with format: avro.")
        SchemaRegistrySpec schemaRegistry) {

  public SourceSpec {
    topics = topics == null ? List.of() : List.copyOf(topics);
    properties = properties == null ? Map.of() : Map.copyOf(properties);
  }

  public SourceSpec(String bootstrapServers, List<String> topics, String topicPattern, String groupId, String kafkaSecretRef,
      Map<String, String> properties) {
    this(bootstrapServers, topics, topicPattern, groupId, kafkaSecretRef, properties, null);
  }

  public SourceSpec(String bootstrapServers, List<String> topics, String topicPattern, String groupId, String kafkaSecretRef,
      Map<String, String> properties, StartFrom startFrom) {
    this(bootstrapServers, topics, topicPattern, groupId, kafkaSecretRef, properties, startFrom, null, null);
  }

  /** The wire format of keys and values: json unless set. */
  public SourceFormat formatOrDefault() {
    return format == null ? SourceFormat.JSON : format;
  }

  /** The same source starting from {@code from} where the table holds nothing. */
  public SourceSpec withStartFrom(StartFrom from) {
    return new SourceSpec(bootstrapServers, topics, topicPattern, groupId, kafkaSecretRef, properties, from, format, schemaRegistry);
  }

  /** The same source written as Avro, its writer schemas in {@code registry}. */
  public SourceSpec withAvro(SchemaRegistrySpec registry) {
    return new SourceSpec(bootstrapServers, topics, topicPattern, groupId, kafkaSecretRef, properties, startFrom, SourceFormat.AVRO, registry);
  }
}
