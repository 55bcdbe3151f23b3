package dev.colloquy.ingestion.store.qdrant;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.qdrant.client.grpc.Collections.CollectionExists;
import io.qdrant.client.grpc.Collections.CollectionInfo;
import io.qdrant.client.grpc.Collections.CollectionExistsRequest;
import io.qdrant.client.grpc.Collections.CollectionExistsResponse;
import io.qdrant.client.grpc.Collections.CollectionOperationResponse;
import io.qdrant.client.grpc.Collections.CreateCollection;
import io.qdrant.client.grpc.Collections.GetCollectionInfoRequest;
import io.qdrant.client.grpc.Collections.GetCollectionInfoResponse;
import io.qdrant.client.grpc.CollectionsGrpc;
import io.qdrant.client.grpc.Points.CountPoints;
import io.qdrant.client.grpc.Points.CountResponse;
import io.qdrant.client.grpc.Points.CountResult;
import io.qdrant.client.grpc.Points.CreateFieldIndexCollection;
import io.qdrant.client.grpc.Points.DeletePoints;
import io.qdrant.client.grpc.Points.PointsOperationResponse;
import io.qdrant.client.grpc.Points.PointsUpdateOperation;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.QueryResponse;
import io.qdrant.client.grpc.Points.ScrollPoints;
import io.qdrant.client.grpc.Points.ScrollResponse;
import io.qdrant.client.grpc.Points.SetPayloadPoints;
import io.qdrant.client.grpc.Points.UpdateBatchPoints;
import io.qdrant.client.grpc.Points.UpdateBatchResponse;
import io.qdrant.client.grpc.Points.UpdateResult;
import io.qdrant.client.grpc.Points.UpdateStatus;
import io.qdrant.client.grpc.Points.UpsertPoints;
import io.qdrant.client.grpc.PointsGrpc;
import io.qdrant.client.grpc.QdrantGrpc;
import io.qdrant.client.grpc.QdrantOuterClass.HealthCheckReply;
import io.qdrant.client.grpc.QdrantOuterClass.HealthCheckRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A FAKE standing in for a Qdrant server, for tests only. Qdrant cannot be installed on this machine;
 * the real Qdrant runs in docker-compose, and {@code QdrantVectorStore} is meant for it.
 *
 * <p>This is an in-process gRPC server on a loopback port that speaks Qdrant's wire protocol (the
 * service classes generated from Qdrant's protos, shipped in {@code io.qdrant:client}) and
 * implements, with in-memory data and exact search, exactly the RPCs the adapter calls:
 * <ul>
 *   <li>{@code qdrant.Qdrant/HealthCheck} (the client's version check on connect);
 *   <li>{@code qdrant.Collections/CollectionExists}, {@code Create}, {@code Get};
 *   <li>{@code qdrant.Points/CreateFieldIndex}, {@code Upsert}, {@code UpdateBatch} (upsert, set payload
 *       and delete operations), {@code SetPayload}, {@code Delete}, {@code Count}, {@code Query} (nearest by
 *       a named dense vector, cosine, or a named sparse vector, dot product over shared indices),
 *       {@code Scroll} (by id, with a filter and an offset).
 * </ul>
 * Filters support {@code must}/{@code should}/{@code must_not}/{@code min_should}, nested filters,
 * {@code has_id}, and matches on keyword, keywords, integer(s) and bool, with array payloads matching
 * when any element does. Like Qdrant's strict mode, a filter on a field without a payload index of the
 * right type is refused, so the adapter must create the indexes its filters rely on. Every other RPC,
 * and every option or condition that would change a result, fails with {@code UNIMPLEMENTED} instead
 * of being silently ignored; options that only tune speed or durability (HNSW and optimizer settings,
 * search params, write ordering, read consistency, timeouts) are accepted and have no effect. With an
 * API key, calls without the matching {@code api-key} header fail with {@code UNAUTHENTICATED}.
 *
 * <p>What it does not model: HNSW approximation (search is exact), segments and optimizers, snapshots,
 * sharding and replication, write ordering and read consistency, persistence beyond the server's
 * lifetime (stores reopened against the same fake see their data, as against a real server).
 */
final class FakeQdrantServer implements AutoCloseable {

  /** The version reported to the client's compatibility check: that of the protos in io.qdrant:client. */
  static final String VERSION = "1.18.0";

  private static final Metadata.Key<String> API_KEY = Metadata.Key.of("api-key", Metadata.ASCII_STRING_MARSHALLER);

  private final Map<String, FakeCollection> collections = new ConcurrentHashMap<>();
  private final AtomicLong operations = new AtomicLong();
  private final Server server;

  private FakeQdrantServer(String apiKey) {
    ServerInterceptor authentication = new ApiKeyCheck(apiKey);
    server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .directExecutor()
        .addService(ServerInterceptors.intercept(new QdrantService(), authentication))
        .addService(ServerInterceptors.intercept(new CollectionsService(), authentication))
        .addService(ServerInterceptors.intercept(new PointsService(), authentication))
        .build();
  }

  /** Starts a fake on a free loopback port; {@code apiKey} may be null for an unsecured server. */
  static FakeQdrantServer start(String apiKey) {
    FakeQdrantServer fake = new FakeQdrantServer(apiKey);
    try {
      fake.server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return fake;
  }

  String host() {
    return InetAddress.getLoopbackAddress().getHostAddress();
  }

  int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    server.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private FakeCollection collection(String name) {
    FakeCollection collection = collections.get(name);
    if (collection == null) {
      throw Status.NOT_FOUND.withDescription("Not found: Collection `" + name + "` doesn't exist!").asRuntimeException();
    }
    return collection;
  }

  private UpdateResult completed() {
    return UpdateResult.newBuilder().setOperationId(operations.incrementAndGet()).setStatus(UpdateStatus.Completed).build();
  }

  private PointsOperationResponse applied() {
    return PointsOperationResponse.newBuilder().setResult(completed()).build();
  }

  private static <T> void answer(StreamObserver<T> response, Supplier<T> body) {
    T result;
    try {
      result = body.get();
    } catch (RuntimeException e) {
      response.onError(Status.fromThrowable(e).asRuntimeException());
      return;
    }
    response.onNext(result);
    response.onCompleted();
  }

  private static final class ApiKeyCheck implements ServerInterceptor {
    private final String apiKey;

    ApiKeyCheck(String apiKey) {
      this.apiKey = apiKey;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      if (apiKey != null && !Objects.equals(apiKey, headers.get(API_KEY))) {
        call.close(Status.UNAUTHENTICATED.withDescription("Must provide an API key or an Authorization bearer token"), new Metadata());
        return new ServerCall.Listener<>() {};
      }
      return next.startCall(call, headers);
    }
  }

  private final class QdrantService extends QdrantGrpc.QdrantImplBase {
    @Override
    public void healthCheck(HealthCheckRequest request, StreamObserver<HealthCheckReply> response) {
      answer(response, () -> HealthCheckReply.newBuilder().setTitle("fake qdrant (tests only)").setVersion(VERSION).build());
    }
  }

  private final class CollectionsService extends CollectionsGrpc.CollectionsImplBase {
    @Override
    public void collectionExists(CollectionExistsRequest request, StreamObserver<CollectionExistsResponse> response) {
      answer(response, () -> CollectionExistsResponse.newBuilder()
          .setResult(CollectionExists.newBuilder().setExists(collections.containsKey(request.getCollectionName())))
          .build());
    }

    @Override
    public void create(CreateCollection request, StreamObserver<CollectionOperationResponse> response) {
      answer(response, () -> {
        FakeCollection created = new FakeCollection(request);
        if (collections.putIfAbsent(request.getCollectionName(), created) != null) {
          throw FakeCollection.invalid("Wrong input: Collection `" + request.getCollectionName() + "` already exists!");
        }
        return CollectionOperationResponse.newBuilder().setResult(true).build();
      });
    }

    @Override
    public void get(GetCollectionInfoRequest request, StreamObserver<GetCollectionInfoResponse> response) {
      answer(response, () -> GetCollectionInfoResponse.newBuilder().setResult(collection(request.getCollectionName()).info()).build());
    }
  }

  private final class PointsService extends PointsGrpc.PointsImplBase {
    @Override
    public void createFieldIndex(CreateFieldIndexCollection request, StreamObserver<PointsOperationResponse> response) {
      answer(response, () -> {
        if (!request.hasFieldType()) {
          throw FakeCollection.invalid("Wrong input: field type is required");
        }
        collection(request.getCollectionName()).createIndex(request.getFieldName(), request.getFieldType(),
            request.hasFieldIndexParams() ? request.getFieldIndexParams() : null);
        return applied();
      });
    }

    @Override
    public void upsert(UpsertPoints request, StreamObserver<PointsOperationResponse> response) {
      answer(response, () -> {
        if (request.hasUpdateFilter() || request.hasUpdateMode()) {
          throw FakeCollection.unimplemented("conditional upserts");
        }
        collection(request.getCollectionName()).upsert(request.getPointsList());
        return applied();
      });
    }

    @Override
    public void setPayload(SetPayloadPoints request, StreamObserver<PointsOperationResponse> response) {
      answer(response, () -> {
        collection(request.getCollectionName()).setPayload(request.getPayloadMap(), request.getPointsSelector(), request.hasKey());
        return applied();
      });
    }

    @Override
    public void delete(DeletePoints request, StreamObserver<PointsOperationResponse> response) {
      answer(response, () -> {
        collection(request.getCollectionName()).delete(request.getPoints());
        return applied();
      });
    }

    @Override
    public void updateBatch(UpdateBatchPoints request, StreamObserver<UpdateBatchResponse> response) {
      answer(response, () -> {
        FakeCollection collection = collection(request.getCollectionName());
        UpdateBatchResponse.Builder results = UpdateBatchResponse.newBuilder();
        synchronized (collection) {
          for (PointsUpdateOperation operation : request.getOperationsList()) {
            apply(collection, operation);
            results.addResult(completed());
          }
        }
        return results.build();
      });
    }

    @Override
    public void count(CountPoints request, StreamObserver<CountResponse> response) {
      answer(response, () -> CountResponse.newBuilder()
          .setResult(CountResult.newBuilder().setCount(collection(request.getCollectionName()).count(request.getFilter())))
          .build());
    }

    @Override
    public void query(QueryPoints request, StreamObserver<QueryResponse> response) {
      answer(response, () -> QueryResponse.newBuilder().addAllResult(collection(request.getCollectionName()).query(request)).build());
    }

    @Override
    public void scroll(ScrollPoints request, StreamObserver<ScrollResponse> response) {
      answer(response, () -> collection(request.getCollectionName()).scroll(request));
    }

    private void apply(FakeCollection collection, PointsUpdateOperation operation) {
      switch (operation.getOperationCase()) {
        case UPSERT -> {
          if (operation.getUpsert().hasUpdateFilter() || operation.getUpsert().hasUpdateMode()) {
            throw FakeCollection.unimplemented("conditional upserts");
          }
          collection.upsert(operation.getUpsert().getPointsList());
        }
        case SET_PAYLOAD -> collection.setPayload(operation.getSetPayload().getPayloadMap(),
            operation.getSetPayload().getPointsSelector(), operation.getSetPayload().hasKey());
        case DELETE_POINTS -> collection.delete(operation.getDeletePoints().getPoints());
        default -> throw FakeCollection.unimplemented("batch operation " + operation.getOperationCase());
      }
    }
  }

  /** What a collection looks like, for tests that inspect what the adapter created. */
  CollectionInfo info(String collection) {
    return collection(collection).info();
  }
}
