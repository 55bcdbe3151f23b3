package dev.colloquy.app;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/** Every log event of the JVM while open, with its MDC as it was when the line was written. */
final class CapturedLogs extends AppenderBase<ILoggingEvent> implements AutoCloseable {

  private final List<ILoggingEvent> events = new CopyOnWriteArrayList<>();

  private CapturedLogs() {}

  static CapturedLogs capture() {
    CapturedLogs logs = new CapturedLogs();
    logs.setContext(root().getLoggerContext());
    logs.start();
    root().addAppender(logs);
    return logs;
  }

  @Override
  protected void append(ILoggingEvent event) {
    // The MDC and arguments are read lazily otherwise, on whatever thread reads them later.
    event.prepareForDeferredProcessing();
    events.add(event);
  }

  List<ILoggingEvent> events() {
    return List.copyOf(events);
  }

  /** A line as a log file would show it: message, MDC values and stack trace. */
  static String line(ILoggingEvent event) {
    String trace = event.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(event.getThrowableProxy());
    return event.getLoggerName() + " " + event.getFormattedMessage() + " " + event.getMDCPropertyMap() + " " + trace;
  }

  @Override
  public void close() {
    root().detachAppender(this);
    stop();
  }

  private static Logger root() {
    return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }
}
