package dev.colloquy.persistence.readside;

import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Which billing records to read: those that occurred on or after {@code from} and before
 * {@code until} (UTC), either bound open. Given as ISO dates, both days included, or as a month.
 */
public record BillingPeriod(Optional<Instant> from, Optional<Instant> until) {

  public static final BillingPeriod ALL = new BillingPeriod(Optional.empty(), Optional.empty());

  /**
   * @param from the first day, {@code YYYY-MM-DD}
   * @param to the last day, {@code YYYY-MM-DD}
   * @param month {@code YYYY-MM}; not together with from or to
   * @throws IllegalArgumentException naming the parameter that is wrong
   */
  public static BillingPeriod of(Optional<String> from, Optional<String> to, Optional<String> month) {
    if (month.isPresent()) {
      if (from.isPresent() || to.isPresent()) {
        throw new IllegalArgumentException("give either period or from/to, not both");
      }
      YearMonth parsed = parse("period", month.get(), "YYYY-MM", YearMonth::parse);
      return new BillingPeriod(Optional.of(startOf(parsed.atDay(1))), Optional.of(startOf(parsed.plusMonths(1).atDay(1))));
    }
    Optional<LocalDate> first = from.map(value -> parse("from", value, "YYYY-MM-DD", LocalDate::parse));
    Optional<LocalDate> last = to.map(value -> parse("to", value, "YYYY-MM-DD", LocalDate::parse));
    if (first.isPresent() && last.isPresent() && last.get().isBefore(first.get())) {
      throw new IllegalArgumentException("to (" + last.get() + ") is before from (" + first.get() + ")");
    }
    return new BillingPeriod(first.map(BillingPeriod::startOf), last.map(day -> startOf(day.plusDays(1))));
  }

  private static Instant startOf(LocalDate day) {
    return day.atStartOfDay(ZoneOffset.UTC).toInstant();
  }

  private interface Parser<T> {
    T parse(String value);
  }

  private static <T> T parse(String name, String value, String format, Parser<T> parser) {
    try {
      return parser.parse(value.strip());
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(name + " must be a date " + format + ", was '" + value + "'");
    }
  }
}
