package dev.floe.worker.runtime;

/**
 * The sink's dead-letter topic does not exist: the worker stops at startup and says how to create
 * it, rather than run until the first bad record and then wait on Kafka's metadata forever.
 */
public class DeadLetterTopicMissingException extends RuntimeException {
  public DeadLetterTopicMissingException(String topic, String bootstrapServers) {
    super("the dead-letter topic " + topic + " does not exist on " + bootstrapServers + ". Create it, for example:"
        + " kafka-topics.sh --bootstrap-server " + bootstrapServers + " --create --topic " + topic
        + " --partitions 1 --replication-factor 3 (choose its retention: rejected records are kept only as long as the topic keeps them);"
        + " or name an existing topic in deadLetter.topic, or set onError: fail. Floe does not rely on the broker auto-creating it.");
  }
}
