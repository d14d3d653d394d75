package dev.floe.worker.quickstart;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/** A real single-node Kafka broker (KRaft, controller and broker combined) inside this JVM. */
public final class EmbeddedKafka implements AutoCloseable {
  private final KafkaClusterTestKit cluster;

  public EmbeddedKafka() throws Exception {
    // The test kit prints its formatting steps to stdout; keep the quickstart's output for people.
    java.io.PrintStream out = System.out;
    System.setOut(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
    try {
      cluster = start();
    } finally {
      System.setOut(out);
    }
  }

  private static KafkaClusterTestKit start() throws Exception {
    KafkaClusterTestKit cluster = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
        .setCombined(true)
        .setNumBrokerNodes(1)
        .setNumControllerNodes(1)
        .build())
        .setConfigProp("offsets.topic.replication.factor", "1")
        .setConfigProp("transaction.state.log.replication.factor", "1")
        .setConfigProp("transaction.state.log.min.isr", "1")
        .setConfigProp("group.initial.rebalance.delay.ms", "0")
        .setConfigProp("num.partitions", "4")
        .build();
    cluster.format();
    cluster.startup();
    cluster.waitForReadyBrokers();
    return cluster;
  }

  public String bootstrapServers() {
    return cluster.bootstrapServers();
  }

  public void createTopic(String name, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    }
  }

  @Override
  public void close() throws Exception {
    cluster.close();
  }
}
