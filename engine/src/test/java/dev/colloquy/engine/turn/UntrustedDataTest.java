package dev.colloquy.engine.turn;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The cleaning of text that goes to the model as data, one character class at a time. */
class UntrustedDataTest {

  @Test
  void textWithNothingToCleanComesBackAsItReadsWithoutTheWhiteSpaceAtItsEnds() {
    assertThat(UntrustedData.text("  The summary: she asked\tabout refunds.\nThen about é and 漢字 and 😀.  \n"))
        .isEqualTo("The summary: she asked\tabout refunds.\nThen about é and 漢字 and 😀.");
  }

  @Test
  void eachCharacterThatCouldForgeAnElementOrHideTextIsCleanedWhereverItStands() {
    assertThat(UntrustedData.text("a<b>c&d")).isEqualTo("a&lt;b&gt;c&amp;d");
    assertThat(UntrustedData.text("one\r\ntwo\rthree\u2028four\u2029five\u0085six"))
        .isEqualTo("one\ntwo\nthree\nfour\nfive\nsix");
    // Controls other than tab and line feed, and format characters (bidi overrides, zero-width, tags).
    assertThat(UntrustedData.text("a\u0000b\u0007c\u007fd\u202ee\u200bf\uDB40\uDC01g"))
        .isEqualTo("abcdefg");
    assertThat(UntrustedData.text("plain until the end\u202e")).isEqualTo("plain until the end");
  }

  @Test
  void theShortCutForPlainTextAgreesWithTheFullCleaningOnEveryCodePoint() {
    for (int codePoint = 0; codePoint <= Character.MAX_CODE_POINT; codePoint++) {
      if (Character.isSurrogate((char) codePoint) && codePoint <= Character.MAX_VALUE) {
        continue; // a lone surrogate is not a code point a text holds
      }
      String text = "a" + Character.toString(codePoint) + "b";
      if (!UntrustedData.text(text).equals(UntrustedData.cleaned(text))) {
        throw new AssertionError("U+" + Integer.toHexString(codePoint) + ": " + UntrustedData.text(text)
            + " against " + UntrustedData.cleaned(text));
      }
    }
  }
}
