package dev.floe.operator.model;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A Debezium change stream kept equal in an Iceberg table by lag-scaled Floe workers. */
@Group("floe.dev")
@Version("v1alpha1")
@ShortNames("cdcs")
// In the order people read them (the CRD generator sorts them by jsonPath; CrdPostProcessor puts
// them back in this order); -o wide adds the priority 1 columns.
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Lag", jsonPath = ".status.lag.total", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Replicas", jsonPath = ".status.replicasSummary", type = AdditionalPrinterColumn.Type.STRING,
    getDescription = "Workers running / workers the lag calls for")
@AdditionalPrinterColumn(name = "Table", jsonPath = ".spec.table.name", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
@AdditionalPrinterColumn(name = "Last Commit", jsonPath = ".status.lastCommit.time", type = AdditionalPrinterColumn.Type.DATE, priority = 1,
    getDescription = "When a worker last committed a snapshot to the table")
@AdditionalPrinterColumn(name = "Reason", jsonPath = ".status.conditions[?(@.type==\"Ready\")].reason", type = AdditionalPrinterColumn.Type.STRING,
    priority = 1, getDescription = "Why the sink is or is not Ready")
public class CdcSink extends CustomResource<CdcSinkSpec, CdcSinkStatus> implements Namespaced {
  @Override
  protected CdcSinkStatus initStatus() {
    return new CdcSinkStatus();
  }
}
