package dev.floe.worker.fold;

/**
 * The value of a column that a change event does not carry: Debezium's TOAST placeholder
 * ({@code __debezium_unavailable_value}) for a large value left unchanged. It means "keep what the
 * table holds".
 */
public final class Unchanged {
  public static final Unchanged VALUE = new Unchanged();
  public static final String DEBEZIUM_PLACEHOLDER = "__debezium_unavailable_value";

  private Unchanged() {}

  @Override
  public String toString() {
    return "<unchanged>";
  }
}
