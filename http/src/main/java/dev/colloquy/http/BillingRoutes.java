package dev.colloquy.http;

import dev.colloquy.http.auth.Principal;
import dev.colloquy.persistence.readside.BillingPeriod;
import dev.colloquy.persistence.readside.JdbcBillingRecords;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /v1/billing}: the caller's tenant's billing records from the read side, for a period
 * ({@code from}/{@code to} days or a {@code period} month), as JSON or CSV ({@code Accept: text/csv}
 * or {@code format=csv}). Records appear a moment after the session event that makes them.
 */
public final class BillingRoutes extends AllDirectives {

  private static final String INVALID_QUERY = "INVALID_QUERY";

  private final JdbcBillingRecords records;
  private final Executor blocking;

  public BillingRoutes(JdbcBillingRecords records, Executor blocking) {
    this.records = records;
    this.blocking = blocking;
  }

  /** The billing records of the caller's tenant only. */
  public Route route(Principal principal) {
    return pathPrefix("v1", () -> path("billing", () -> get(() -> extractRequest(request ->
        parameterOptional("from", from -> parameterOptional("to", to -> parameterOptional("period", month ->
            parameterOptional("format", format -> {
              boolean csv = csv(format, request);
              BillingPeriod period = period(from, to, month);
              return onSuccess(report(principal.tenantId(), period), report -> complete(response(report, csv)));
            }))))))));
  }

  private CompletionStage<BillingReport> report(String tenant, BillingPeriod period) {
    return CompletableFuture.supplyAsync(() -> BillingReport.of(tenant, period, records.list(tenant, period)), blocking)
        .exceptionally(error -> {
          throw new ApiException(StatusCodes.SERVICE_UNAVAILABLE, "BILLING_UNAVAILABLE",
              "The billing records cannot be read right now; try again");
        });
  }

  private static BillingPeriod period(Optional<String> from, Optional<String> to, Optional<String> month) {
    try {
      return BillingPeriod.of(from, to, month);
    } catch (IllegalArgumentException e) {
      throw new ApiException(StatusCodes.BAD_REQUEST, INVALID_QUERY, e.getMessage());
    }
  }

  private static boolean csv(Optional<String> format, HttpRequest request) {
    if (format.isPresent()) {
      return switch (format.get()) {
        case "csv" -> true;
        case "json" -> false;
        default -> throw new ApiException(StatusCodes.BAD_REQUEST, INVALID_QUERY,
            "format must be json or csv, was '" + format.get() + "'");
      };
    }
    return request.getHeader("Accept").map(accept -> accept.value().contains("text/csv")).orElse(false);
  }

  private static HttpResponse response(BillingReport report, boolean csv) {
    if (csv) {
      return HttpResponse.create().withEntity(HttpEntities.create(
          ContentTypes.create(MediaTypes.TEXT_CSV, HttpCharsets.UTF_8), report.csv()));
    }
    return HttpResponse.create().withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, report.json()));
  }
}
