package dev.floe.operator.scale;

/** The lag of a sink could not be read (Kafka unreachable, group or topics not visible). */
public class LagReadException extends RuntimeException {
  public LagReadException(String message, Throwable cause) {
    super(message, cause);
  }
}
