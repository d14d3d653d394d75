package dev.floe.worker.runtime;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmCompilationMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;

/**
 * The worker process's JVM on its metrics endpoint, as JVM dashboards read it: CPU time and usage,
 * collector pauses, JIT compilation time, threads and classes. On a pod of 2 CPUs the collector and
 * the JIT compilers take a large share of a fresh worker's CPU (a quarter of it went to compiling
 * in a full-size benchmark run): these say how much, without a profiler. Bound once per process;
 * closing it stops listening for collections.
 */
public final class JvmMeters implements AutoCloseable {
  private final JvmGcMetrics gc = new JvmGcMetrics();

  private JvmMeters(MeterRegistry registry) {
    new ProcessorMetrics().bindTo(registry);
    new JvmCompilationMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    gc.bindTo(registry);
  }

  public static JvmMeters bindTo(MeterRegistry registry) {
    return new JvmMeters(registry);
  }

  @Override
  public void close() {
    gc.close();
  }
}
