package dev.floe.operator.dependent;

import dev.floe.operator.model.CdcSink;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;

/** The compaction CronJob exists only while the sink has a compaction schedule. */
public class CompactionScheduled implements Condition<CronJob, CdcSink> {
  @Override
  public boolean isMet(DependentResource<CronJob, CdcSink> dependent, CdcSink sink, Context<CdcSink> context) {
    var compaction = sink.getSpec().compaction();
    return compaction != null && compaction.schedule() != null && !compaction.schedule().isBlank();
  }
}
