package dev.floe.worker.logging;

import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;
import dev.floe.worker.config.Redactor;

/** A throwable as logged, its message and those of its causes and suppressed ones redacted. */
final class RedactedThrowableProxy implements IThrowableProxy {
  private final IThrowableProxy proxy;

  private RedactedThrowableProxy(IThrowableProxy proxy) {
    this.proxy = proxy;
  }

  static IThrowableProxy of(IThrowableProxy proxy) {
    return proxy == null || proxy instanceof RedactedThrowableProxy ? proxy : new RedactedThrowableProxy(proxy);
  }

  @Override
  public String getMessage() {
    return Redactor.redact(proxy.getMessage());
  }

  @Override
  public String getClassName() {
    return proxy.getClassName();
  }

  @Override
  public StackTraceElementProxy[] getStackTraceElementProxyArray() {
    return proxy.getStackTraceElementProxyArray();
  }

  @Override
  public int getCommonFrames() {
    return proxy.getCommonFrames();
  }

  @Override
  public IThrowableProxy getCause() {
    // wrapped on demand: logback marks a cause cycle with isCyclic(), so this never recurses forever
    return of(proxy.getCause());
  }

  @Override
  public IThrowableProxy[] getSuppressed() {
    IThrowableProxy[] suppressed = proxy.getSuppressed();
    if (suppressed == null) {
      return null;
    }
    IThrowableProxy[] out = new IThrowableProxy[suppressed.length];
    for (int i = 0; i < suppressed.length; i++) {
      out[i] = of(suppressed[i]);
    }
    return out;
  }

  @Override
  public boolean isCyclic() {
    return proxy.isCyclic();
  }
}
