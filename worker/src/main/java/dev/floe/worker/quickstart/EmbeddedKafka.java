package dev.floe.worker.quickstart;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker (KRaft, controller and broker combined) inside this JVM.
 *
 * <p>It owns its log directory and is closed before that directory is deleted, also when the JVM
 * exits with the broker still open. The test kit's default directory is deleted by a shutdown hook
 * of Kafka's own that runs concurrently with every other hook; a broker still running when its
 * metadata log directory vanishes halts the JVM with exit code 1 ({@code ReplicaManager}'s log
 * directory failure), which turned a passing test run into a failed build.
 */
public final class EmbeddedKafka implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);

  private final Path directory;
  private final KafkaClusterTestKit cluster;
  private final Thread closeAtExit = new Thread(this::closeAtExit, "embedded-kafka-shutdown");
  private boolean closed;

  /** A broker with this class's defaults: four partitions per topic, groups assigned without delay. */
  public EmbeddedKafka() throws Exception {
    this(Map.of());
  }

  /**
   * @param brokerSettings broker settings over this class's defaults: the benchmark restores Kafka's
   *     own {@code group.initial.rebalance.delay.ms}, a test turns a group protocol off
   */
  public EmbeddedKafka(Map<String, String> brokerSettings) throws Exception {
    directory = Files.createTempDirectory("floe-kafka-");
    // The test kit prints its formatting steps to stdout; keep the quickstart's output for people.
    java.io.PrintStream out = System.out;
    System.setOut(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
    try {
      cluster = start(directory, brokerSettings);
    } catch (Exception | Error e) {
      try {
        org.apache.kafka.common.utils.Utils.delete(directory.toFile());
      } catch (java.io.IOException cleanup) {
        e.addSuppressed(cleanup); // why the broker did not start is what matters
      }
      throw e;
    } finally {
      System.setOut(out);
    }
    Runtime.getRuntime().addShutdownHook(closeAtExit);
  }

  private static KafkaClusterTestKit start(Path directory, Map<String, String> brokerSettings) throws Exception {
    KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
        .setCombined(true)
        .setNumBrokerNodes(1)
        .setNumControllerNodes(1)
        .setBaseDirectory(directory)
        .build())
        .setConfigProp("offsets.topic.replication.factor", "1")
        .setConfigProp("transaction.state.log.replication.factor", "1")
        .setConfigProp("transaction.state.log.min.isr", "1")
        .setConfigProp("group.initial.rebalance.delay.ms", "0")
        .setConfigProp("num.partitions", "4");
    brokerSettings.forEach(builder::setConfigProp);
    KafkaClusterTestKit cluster = builder.build();
    cluster.format();
    cluster.startup();
    cluster.waitForReadyBrokers();
    return cluster;
  }

  /** The broker's log directory (metadata and topics), deleted when the broker closes. */
  public Path directory() {
    return directory;
  }

  public String bootstrapServers() {
    return cluster.bootstrapServers();
  }

  public void createTopic(String name, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    }
  }

  /** Stops the broker, then deletes its directory (the test kit does both, in that order). */
  @Override
  public synchronized void close() throws Exception {
    if (closed) {
      return;
    }
    closed = true;
    if (Thread.currentThread() != closeAtExit) {
      try {
        Runtime.getRuntime().removeShutdownHook(closeAtExit);
      } catch (IllegalStateException exiting) {
        // the JVM is already exiting: the hook runs, finds the broker closed and returns
      }
    }
    cluster.close();
  }

  private void closeAtExit() {
    try {
      close();
    } catch (Exception e) {
      LOG.warn("the embedded Kafka broker did not close cleanly while the JVM exited", e);
    }
  }
}
