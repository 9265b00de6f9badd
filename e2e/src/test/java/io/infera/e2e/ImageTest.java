package io.infera.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ImageTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)|/lib/x86_64-linux-gnu/libc.so.6",
        "/lib64/ld-linux-x86-64.so.2 (0x00007f)|/lib64/ld-linux-x86-64.so.2",
        "libm.so.6 => /lib/libm.so.6|/lib/libm.so.6",
      })
  void librariesOfLddLines(String line, String path) {
    assertThat(Image.library(line)).isEqualTo(path);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "linux-vdso.so.1 (0x00007ffd)",
        "",
        "statically linked",
        "libfoo.so => not found",
        "=>",
        "(0x0)"
      })
  void linesWithoutALibraryFile(String line) {
    assertThat(Image.library(line)).isNull();
  }
}
