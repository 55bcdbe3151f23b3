package dev.colloquy.engine.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The examples of RFC 7386 §3 that matter for narrative state, and that inputs are never mutated. */
class JsonMergePatchTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text.replace('\'', '"'));
  }

  @Test
  void mergesAddsReplacesAndRemoves() throws Exception {
    JsonNode target = json("{'a':'b','c':{'d':'e','f':'g'},'keep':[1,2]}");
    JsonNode patch = json("{'a':'z','c':{'f':null},'new':{'x':1},'keep':[3]}");
    JsonNode before = target.deepCopy();
    assertThat(JsonMergePatch.apply(target, patch)).isEqualTo(json("{'a':'z','c':{'d':'e'},'keep':[3],'new':{'x':1}}"));
    assertThat(target).isEqualTo(before);
  }

  @Test
  void aNonObjectPatchReplacesTheTarget() throws Exception {
    assertThat(JsonMergePatch.apply(json("{'a':1}"), json("[1]"))).isEqualTo(json("[1]"));
    assertThat(JsonMergePatch.apply(json("[1]"), json("{'a':1}"))).isEqualTo(json("{'a':1}"));
  }
}
