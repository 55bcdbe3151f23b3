package dev.colloquy.engine.model.openai;

import com.openai.core.RequestOptions;
import com.openai.core.http.Headers;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpRequestBody;
import com.openai.core.http.HttpResponse;
import com.openai.errors.OpenAIIoException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CompletableFuture;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * openai-java's HTTP client interface over one shared OkHttp client, beneath openai-java's retrying
 * client. openai-java's own OkHttp adapter builds a new {@code OkHttpClient} for every call to apply
 * that call's timeouts; here the connect and write timeouts are the transport's own (set once from
 * the provider's settings, as every call asks for the same). The wait for the answer, the gaps
 * between its reads and the whole call's length are kept by the caller's {@link ReadDeadline}, which
 * interrupts the call's thread, not by OkHttp's read and call timeouts (see there why). Like
 * openai-java's adapter it blocks the calling thread, so interrupting that thread (a cancel) closes the
 * call's socket, and it reports a failed exchange as {@link OpenAIIoException}.
 */
final class OkHttpTransport implements HttpClient {

  private final OkHttpClient http;

  OkHttpTransport(OkHttpClient http) {
    this.http = http;
  }

  @Override
  public HttpResponse execute(HttpRequest request, RequestOptions options) {
    Call call = http.newCall(okHttpRequest(request));
    try {
      return new Answer(call.execute());
    } catch (IOException e) {
      throw new OpenAIIoException("Request failed", e);
    }
  }

  /** The engine's calls block on their own virtual threads; nothing asks for the asynchronous form. */
  @Override
  public CompletableFuture<HttpResponse> executeAsync(HttpRequest request, RequestOptions options) {
    return CompletableFuture.supplyAsync(() -> execute(request, options), Thread.ofVirtual()::start);
  }

  @Override
  public void close() {
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }

  private static Request okHttpRequest(HttpRequest request) {
    Request.Builder builder = new Request.Builder().url(request.url());
    Headers headers = request.headers();
    for (String name : headers.names()) {
      for (String value : headers.values(name)) {
        builder.addHeader(name, value);
      }
    }
    HttpRequestBody body = request.body();
    return builder.method(request.method().name(), body == null ? null : okHttpBody(body)).build();
  }

  private static RequestBody okHttpBody(HttpRequestBody body) {
    byte[] bytes;
    if (body instanceof JsonBody json) {
      bytes = json.bytes();
    } else {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      body.writeTo(out);
      bytes = out.toByteArray();
    }
    return RequestBody.create(bytes, body.contentType() == null ? null : MediaType.parse(body.contentType()));
  }

  /** OkHttp's response as openai-java's. */
  private record Answer(Response response) implements HttpResponse {

    @Override
    public int statusCode() {
      return response.code();
    }

    @Override
    public Headers headers() {
      Headers.Builder headers = Headers.builder();
      for (String name : response.headers().names()) {
        headers.put(name, response.headers(name));
      }
      return headers.build();
    }

    @Override
    public InputStream body() {
      return response.body().byteStream();
    }

    @Override
    public void close() {
      response.close();
    }
  }
}
