package dev.colloquy.ingestion.store.qdrant;

import dev.colloquy.ingestion.embed.Vectors;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.qdrant.client.grpc.Collections.CollectionConfig;
import io.qdrant.client.grpc.Collections.CollectionInfo;
import io.qdrant.client.grpc.Collections.CollectionParams;
import io.qdrant.client.grpc.Collections.CollectionStatus;
import io.qdrant.client.grpc.Collections.CreateCollection;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.Modifier;
import io.qdrant.client.grpc.Collections.OptimizerStatus;
import io.qdrant.client.grpc.Collections.PayloadIndexParams;
import io.qdrant.client.grpc.Collections.PayloadSchemaInfo;
import io.qdrant.client.grpc.Collections.PayloadSchemaType;
import io.qdrant.client.grpc.Collections.SparseVectorParams;
import io.qdrant.client.grpc.Collections.VectorParams;
import io.qdrant.client.grpc.Common.Condition;
import io.qdrant.client.grpc.Common.FieldCondition;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.Common.Match;
import io.qdrant.client.grpc.Common.PointId;
import io.qdrant.client.grpc.JsonWithInt.Value;
import io.qdrant.client.grpc.Points.FieldType;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.PointsSelector;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.RetrievedPoint;
import io.qdrant.client.grpc.Points.ScoredPoint;
import io.qdrant.client.grpc.Points.ScrollPoints;
import io.qdrant.client.grpc.Points.ScrollResponse;
import io.qdrant.client.grpc.Points.SparseVector;
import io.qdrant.client.grpc.Points.Vector;
import io.qdrant.client.grpc.Points.VectorInput;
import io.qdrant.client.grpc.Points.WithPayloadSelector;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * One collection of {@link FakeQdrantServer}: points in memory, exact (brute-force) search, and the
 * part of Qdrant's filter language the adapter uses. Anything else that would change a result fails
 * with {@code UNIMPLEMENTED} rather than being ignored, so the fake can only agree with Qdrant or refuse.
 * Every method runs under the collection's lock, so a batch of operations is applied atomically here
 * (real Qdrant applies them in order, not atomically).
 */
final class FakeCollection {

  private record SparseValues(Map<Integer, Float> weights) {}

  private record StoredPoint(PointId id, Map<String, Value> payload, Map<String, float[]> dense, Map<String, SparseValues> sparse) {}

  private final CreateCollection config;
  private final Map<String, VectorParams> denseConfig;
  private final Map<String, SparseVectorParams> sparseConfig;
  private final Map<String, FieldType> indexes = new LinkedHashMap<>();
  private final Map<String, PayloadIndexParams> indexParams = new HashMap<>();
  private final Map<String, StoredPoint> points = new LinkedHashMap<>();

  FakeCollection(CreateCollection config) {
    if (!config.getVectorsConfig().hasParamsMap()) {
      throw unimplemented("collections without named vectors");
    }
    denseConfig = Map.copyOf(config.getVectorsConfig().getParamsMap().getMapMap());
    sparseConfig = Map.copyOf(config.getSparseVectorsConfig().getMapMap());
    denseConfig.forEach((name, params) -> {
      if (params.getSize() == 0) {
        throw invalid("Wrong input: vector '" + name + "' must have a size");
      }
      if (params.getDistance() != Distance.Cosine) {
        throw unimplemented("distance " + params.getDistance());
      }
    });
    sparseConfig.forEach((name, params) -> {
      if (params.hasModifier() && params.getModifier() != Modifier.None) {
        throw unimplemented("sparse vector modifier " + params.getModifier());
      }
    });
    this.config = config;
  }

  synchronized CollectionInfo info() {
    Map<String, PayloadSchemaInfo> schema = new LinkedHashMap<>();
    indexes.forEach((field, type) -> {
      PayloadSchemaInfo.Builder info = PayloadSchemaInfo.newBuilder().setDataType(schemaType(type))
          .setPoints(points.values().stream().filter(point -> point.payload().containsKey(field)).count());
      if (indexParams.containsKey(field)) {
        info.setParams(indexParams.get(field));
      }
      schema.put(field, info.build());
    });
    return CollectionInfo.newBuilder()
        .setStatus(CollectionStatus.Green)
        .setOptimizerStatus(OptimizerStatus.newBuilder().setOk(true))
        .setSegmentsCount(1)
        .setPointsCount(points.size())
        .setConfig(CollectionConfig.newBuilder().setParams(CollectionParams.newBuilder()
            .setShardNumber(1)
            .setVectorsConfig(config.getVectorsConfig())
            .setSparseVectorsConfig(config.getSparseVectorsConfig()))
            .setHnswConfig(config.getHnswConfig()))
        .putAllPayloadSchema(schema)
        .build();
  }

  synchronized void createIndex(String field, FieldType type, PayloadIndexParams params) {
    if (field.contains(".") || field.contains("[")) {
      throw unimplemented("indexes on nested keys");
    }
    indexes.put(field, type);
    if (params == null) {
      indexParams.remove(field);
    } else {
      indexParams.put(field, params);
    }
  }

  synchronized void upsert(List<PointStruct> structs) {
    List<StoredPoint> parsed = structs.stream().map(this::parse).toList();
    parsed.forEach(point -> points.put(key(point.id()), point));
  }

  synchronized void delete(PointsSelector selector) {
    selected(selector).forEach(point -> points.remove(key(point.id())));
  }

  synchronized void setPayload(Map<String, Value> payload, PointsSelector selector, boolean nestedKey) {
    if (nestedKey) {
      throw unimplemented("set_payload with a key");
    }
    for (StoredPoint point : selected(selector)) {
      Map<String, Value> merged = new LinkedHashMap<>(point.payload());
      merged.putAll(payload);
      points.put(key(point.id()), new StoredPoint(point.id(), merged, point.dense(), point.sparse()));
    }
  }

  synchronized long count(Filter filter) {
    Predicate<StoredPoint> accepted = predicate(filter);
    return points.values().stream().filter(accepted).count();
  }

  synchronized List<ScoredPoint> query(QueryPoints request) {
    if (request.getPrefetchCount() > 0 || request.hasLookupFrom() || request.hasShardKeySelector()) {
      throw unimplemented("prefetch, lookup_from and shard keys");
    }
    if (!request.hasQuery() || !request.getQuery().hasNearest()) {
      throw unimplemented("queries other than nearest");
    }
    if (request.hasWithVectors() && request.getWithVectors().getEnable()) {
      throw unimplemented("returning vectors");
    }
    Predicate<StoredPoint> accepted = request.hasFilter() ? predicate(request.getFilter()) : point -> true;
    String using = request.getUsing();
    VectorInput input = request.getQuery().getNearest();
    List<ScoredPoint> scored = new ArrayList<>();
    switch (input.getVariantCase()) {
      case DENSE -> {
        VectorParams params = denseConfig.get(using);
        if (params == null) {
          throw invalid("Wrong input: Not existing vector name error: " + using);
        }
        float[] query = floats(input.getDense().getDataList());
        requireSize(using, params, query.length);
        for (StoredPoint point : points.values()) {
          float[] stored = point.dense().get(using);
          if (stored != null && accepted.test(point)) {
            scored.add(scoredPoint(point, Vectors.cosine(query, stored), request.getWithPayload()));
          }
        }
      }
      case SPARSE -> {
        if (!sparseConfig.containsKey(using)) {
          throw invalid("Wrong input: Not existing vector name error: " + using);
        }
        Map<Integer, Float> query = sparse(input.getSparse().getIndicesList(), input.getSparse().getValuesList()).weights();
        for (StoredPoint point : points.values()) {
          SparseValues stored = point.sparse().get(using);
          if (stored != null && overlaps(query, stored.weights()) && accepted.test(point)) {
            scored.add(scoredPoint(point, dot(query, stored.weights()), request.getWithPayload()));
          }
        }
      }
      default -> throw unimplemented("nearest by " + input.getVariantCase());
    }
    long limit = request.hasLimit() ? request.getLimit() : 10;
    return scored.stream()
        .filter(point -> !request.hasScoreThreshold() || point.getScore() >= request.getScoreThreshold())
        .sorted(Comparator.comparingDouble(ScoredPoint::getScore).reversed())
        .skip(request.getOffset())
        .limit(limit)
        .toList();
  }

  /**
   * The points the filter accepts in Qdrant's scroll order (numeric ids, then UUIDs, each ascending),
   * from {@code offset} on (inclusive), a page of {@code limit} (10 when absent) with the id of the next
   * point as the next page's offset.
   */
  synchronized ScrollResponse scroll(ScrollPoints request) {
    if (request.hasOrderBy() || request.hasShardKeySelector()) {
      throw unimplemented("scroll ordered by a payload field or by shard keys");
    }
    if (request.hasWithVectors() && request.getWithVectors().getEnable()) {
      throw unimplemented("returning vectors");
    }
    Predicate<StoredPoint> accepted = request.hasFilter() ? predicate(request.getFilter()) : point -> true;
    List<StoredPoint> ordered = points.values().stream().filter(accepted).sorted(SCROLL_ORDER).toList();
    int from = 0;
    if (request.hasOffset()) {
      StoredPoint start = new StoredPoint(normalized(request.getOffset()), Map.of(), Map.of(), Map.of());
      while (from < ordered.size() && SCROLL_ORDER.compare(ordered.get(from), start) < 0) {
        from++;
      }
    }
    int limit = request.hasLimit() ? request.getLimit() : 10;
    ScrollResponse.Builder page = ScrollResponse.newBuilder();
    WithPayloadSelector selector = request.getWithPayload();
    ordered.stream().skip(from).limit(limit).forEach(point ->
        page.addResult(RetrievedPoint.newBuilder().setId(point.id()).putAllPayload(payload(point, selector))));
    if (from + limit < ordered.size()) {
      page.setNextPageOffset(ordered.get(from + limit).id());
    }
    return page.build();
  }

  private static final Comparator<StoredPoint> SCROLL_ORDER = Comparator
      .comparing((StoredPoint point) -> point.id().hasNum() ? 0 : 1)
      .thenComparing(point -> point.id().getNum(), Long::compareUnsigned)
      .thenComparing(point -> point.id().getUuid());

  private StoredPoint parse(PointStruct struct) {
    if (!struct.getVectors().hasVectors()) {
      throw invalid("Wrong input: Not existing vector name error: ");
    }
    Map<String, float[]> dense = new HashMap<>();
    Map<String, SparseValues> sparse = new HashMap<>();
    struct.getVectors().getVectors().getVectorsMap().forEach((name, vector) -> {
      if (denseConfig.containsKey(name)) {
        float[] values = denseValues(name, vector);
        requireSize(name, denseConfig.get(name), values.length);
        dense.put(name, values);
      } else if (sparseConfig.containsKey(name)) {
        sparse.put(name, sparseValues(name, vector));
      } else {
        throw invalid("Wrong input: Not existing vector name error: " + name);
      }
    });
    return new StoredPoint(normalized(struct.getId()), new LinkedHashMap<>(struct.getPayloadMap()), dense, sparse);
  }

  @SuppressWarnings("deprecation")
  private static float[] denseValues(String name, Vector vector) {
    if (vector.hasDense()) {
      return floats(vector.getDense().getDataList());
    }
    if (vector.getVectorCase() == Vector.VectorCase.VECTOR_NOT_SET && !vector.hasIndices() && vector.getDataCount() > 0) {
      return floats(vector.getDataList());
    }
    throw invalid("Wrong input: vector '" + name + "' is dense, got " + vector.getVectorCase());
  }

  @SuppressWarnings("deprecation")
  private static SparseValues sparseValues(String name, Vector vector) {
    if (vector.hasSparse()) {
      SparseVector sparse = vector.getSparse();
      return sparse(sparse.getIndicesList(), sparse.getValuesList());
    }
    if (vector.getVectorCase() == Vector.VectorCase.VECTOR_NOT_SET && vector.hasIndices()) {
      return sparse(vector.getIndices().getDataList(), vector.getDataList());
    }
    throw invalid("Wrong input: vector '" + name + "' is sparse, got " + vector.getVectorCase());
  }

  private static SparseValues sparse(List<Integer> indices, List<Float> values) {
    if (indices.size() != values.size()) {
      throw invalid("Validation error: sparse vector indices and values must have the same length");
    }
    Map<Integer, Float> weights = new HashMap<>();
    for (int i = 0; i < indices.size(); i++) {
      if (weights.put(indices.get(i), values.get(i)) != null) {
        throw invalid("Validation error: sparse vector indices must be unique");
      }
    }
    return new SparseValues(weights);
  }

  private List<StoredPoint> selected(PointsSelector selector) {
    return switch (selector.getPointsSelectorOneOfCase()) {
      case FILTER -> points.values().stream().filter(predicate(selector.getFilter())).toList();
      case POINTS -> selector.getPoints().getIdsList().stream()
          .map(id -> points.get(key(normalized(id))))
          .filter(point -> point != null)
          .toList();
      case POINTSSELECTORONEOF_NOT_SET -> throw invalid("Wrong input: no points selected");
    };
  }

  private Predicate<StoredPoint> predicate(Filter filter) {
    List<Predicate<StoredPoint>> must = filter.getMustList().stream().map(this::predicate).toList();
    List<Predicate<StoredPoint>> mustNot = filter.getMustNotList().stream().map(this::predicate).toList();
    List<Predicate<StoredPoint>> should = filter.getShouldList().stream().map(this::predicate).toList();
    List<Predicate<StoredPoint>> minShould = filter.getMinShould().getConditionsList().stream().map(this::predicate).toList();
    long minCount = filter.getMinShould().getMinCount();
    return point -> must.stream().allMatch(condition -> condition.test(point))
        && mustNot.stream().noneMatch(condition -> condition.test(point))
        && (should.isEmpty() || should.stream().anyMatch(condition -> condition.test(point)))
        && (!filter.hasMinShould() || minShould.stream().filter(condition -> condition.test(point)).count() >= minCount);
  }

  private Predicate<StoredPoint> predicate(Condition condition) {
    return switch (condition.getConditionOneOfCase()) {
      case FIELD -> predicate(condition.getField());
      case FILTER -> predicate(condition.getFilter());
      case HAS_ID -> {
        Set<String> ids = new HashSet<>();
        condition.getHasId().getHasIdList().forEach(id -> ids.add(key(normalized(id))));
        yield point -> ids.contains(key(point.id()));
      }
      default -> throw unimplemented("condition " + condition.getConditionOneOfCase());
    };
  }

  /** Filtering on a field needs an index of the matching type, as Qdrant's strict mode requires. */
  private Predicate<StoredPoint> predicate(FieldCondition condition) {
    String key = condition.getKey();
    if (!condition.hasMatch() || condition.hasRange() || condition.hasGeoBoundingBox() || condition.hasGeoRadius()
        || condition.hasValuesCount() || condition.hasGeoPolygon() || condition.hasDatetimeRange()
        || condition.hasIsEmpty() || condition.hasIsNull()) {
      throw unimplemented("field conditions other than match, on " + key);
    }
    Match match = condition.getMatch();
    FieldType needed = switch (match.getMatchValueCase()) {
      case KEYWORD, KEYWORDS -> FieldType.FieldTypeKeyword;
      case INTEGER, INTEGERS -> FieldType.FieldTypeInteger;
      case BOOLEAN -> FieldType.FieldTypeBool;
      default -> throw unimplemented("match " + match.getMatchValueCase());
    };
    if (indexes.get(key) != needed) {
      throw invalid("Bad request: Index required but not found for \"" + key + "\" of one of the following types: ["
          + schemaType(needed).name().toLowerCase(Locale.ROOT) + "]");
    }
    Predicate<Value> accepts = switch (match.getMatchValueCase()) {
      case KEYWORD -> value -> value.hasStringValue() && value.getStringValue().equals(match.getKeyword());
      case KEYWORDS -> value -> value.hasStringValue() && match.getKeywords().getStringsList().contains(value.getStringValue());
      case INTEGER -> value -> value.hasIntegerValue() && value.getIntegerValue() == match.getInteger();
      case INTEGERS -> value -> value.hasIntegerValue() && match.getIntegers().getIntegersList().contains(value.getIntegerValue());
      case BOOLEAN -> value -> value.hasBoolValue() && value.getBoolValue() == match.getBoolean();
      default -> throw unimplemented("match " + match.getMatchValueCase());
    };
    return point -> values(point.payload().get(key)).stream().anyMatch(accepts);
  }

  /** A payload value as the values a match tests: an array's elements, or the value itself. */
  private static List<Value> values(Value value) {
    if (value == null) {
      return List.of();
    }
    return value.hasListValue() ? value.getListValue().getValuesList() : List.of(value);
  }

  private static ScoredPoint scoredPoint(StoredPoint point, double score, WithPayloadSelector selector) {
    return ScoredPoint.newBuilder().setId(point.id()).putAllPayload(payload(point, selector)).setScore((float) score).setVersion(1).build();
  }

  private static Map<String, Value> payload(StoredPoint point, WithPayloadSelector selector) {
    return switch (selector.getSelectorOptionsCase()) {
      case ENABLE -> selector.getEnable() ? point.payload() : Map.of();
      case INCLUDE -> {
        Map<String, Value> included = new LinkedHashMap<>(point.payload());
        included.keySet().retainAll(selector.getInclude().getFieldsList());
        yield included;
      }
      case EXCLUDE -> {
        Map<String, Value> kept = new LinkedHashMap<>(point.payload());
        selector.getExclude().getFieldsList().forEach(kept::remove);
        yield kept;
      }
      case SELECTOROPTIONS_NOT_SET -> Map.of();
    };
  }

  private static boolean overlaps(Map<Integer, Float> query, Map<Integer, Float> stored) {
    return query.keySet().stream().anyMatch(stored::containsKey);
  }

  private static double dot(Map<Integer, Float> query, Map<Integer, Float> stored) {
    double sum = 0;
    for (Map.Entry<Integer, Float> term : query.entrySet()) {
      sum += term.getValue() * stored.getOrDefault(term.getKey(), 0f);
    }
    return sum;
  }

  private static void requireSize(String name, VectorParams params, int size) {
    if (size != params.getSize()) {
      throw invalid("Wrong input: Vector dimension error: expected dim: " + params.getSize() + ", got " + size + " (vector '" + name + "')");
    }
  }

  private static float[] floats(List<Float> values) {
    float[] array = new float[values.size()];
    for (int i = 0; i < array.length; i++) {
      array[i] = values.get(i);
    }
    return array;
  }

  private static PointId normalized(PointId id) {
    return switch (id.getPointIdOptionsCase()) {
      case NUM -> id;
      case UUID -> {
        try {
          yield PointId.newBuilder().setUuid(UUID.fromString(id.getUuid()).toString()).build();
        } catch (IllegalArgumentException e) {
          throw invalid("Unable to parse UUID: " + id.getUuid());
        }
      }
      case POINTIDOPTIONS_NOT_SET -> throw invalid("Wrong input: point id is missing");
    };
  }

  private static String key(PointId id) {
    return id.hasNum() ? "n" + Long.toUnsignedString(id.getNum()) : "u" + id.getUuid();
  }

  private static PayloadSchemaType schemaType(FieldType type) {
    return switch (type) {
      case FieldTypeKeyword -> PayloadSchemaType.Keyword;
      case FieldTypeInteger -> PayloadSchemaType.Integer;
      case FieldTypeFloat -> PayloadSchemaType.Float;
      case FieldTypeGeo -> PayloadSchemaType.Geo;
      case FieldTypeText -> PayloadSchemaType.Text;
      case FieldTypeBool -> PayloadSchemaType.Bool;
      case FieldTypeDatetime -> PayloadSchemaType.Datetime;
      case FieldTypeUuid -> PayloadSchemaType.Uuid;
      case UNRECOGNIZED -> PayloadSchemaType.UnknownType;
    };
  }

  static StatusRuntimeException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
  }

  static StatusRuntimeException unimplemented(String what) {
    return Status.UNIMPLEMENTED.withDescription("the fake Qdrant server does not implement " + what).asRuntimeException();
  }
}
