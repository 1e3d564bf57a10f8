package dev.mailroom.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.security.auth.module.UnixSystem;
import dev.mailroom.embedded.SecretKeyStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Key files are read like OpenSSH reads private keys: private, small, regular. */
class KeyFileTest {

  private static final String KEY = "cafebabe".repeat(8);

  private static Map<String, String> env(Path keyFile) {
    Map<String, String> env = new HashMap<>();
    env.put("MAILROOM_DATABASE_URL", "dbname=mailroom");
    env.put("MAILROOM_SECRET_KEY_FILE", keyFile.toString());
    return env;
  }

  private static Path keyFile(Path dir, String mode) throws Exception {
    Path file = dir.resolve("key");
    Files.writeString(file, KEY + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    return file;
  }

  @Test
  void a_key_file_only_its_owner_can_read_is_used(@TempDir Path dir) throws Exception {
    for (String mode : new String[] {"rw-------", "r--------"}) {
      MailroomConfig c = EnvironmentConfig.read(env(keyFile(dir, mode)));
      assertThat(c.secretKey()).isEqualTo(HexFormat.of().parseHex(KEY));
      Files.delete(dir.resolve("key"));
    }
  }

  @Test
  void a_key_file_others_or_the_owners_group_can_read_is_refused(@TempDir Path dir)
      throws Exception {
    for (String mode : new String[] {"rw-r--r--", "rw-r-----", "rw-----w-", "r-----r--"}) {
      Path file = keyFile(dir, mode);
      assertThatThrownBy(() -> EnvironmentConfig.read(env(file)))
          .as(mode)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("MAILROOM_SECRET_KEY_FILE " + file + " may be read or changed")
          .hasMessageContaining("chmod 600")
          .hasMessageNotContaining(KEY);
      Files.delete(file);
    }
  }

  @Test
  void a_group_readable_key_of_another_owner_is_how_a_mounted_secret_arrives(@TempDir Path dir)
      throws Exception {
    assumeTrue(new UnixSystem().getUid() == 0, "needs root to give the file to another user");
    Path file = keyFile(dir, "r--r-----");
    Files.setAttribute(file, "unix:uid", 65534);
    assertThat(EnvironmentConfig.read(env(file)).secretKey())
        .isEqualTo(HexFormat.of().parseHex(KEY));
  }

  @Test
  void special_and_huge_files_are_clear_errors(@TempDir Path dir) throws Exception {
    assertThatThrownBy(() -> EnvironmentConfig.read(env(Path.of("/dev/zero"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("/dev/zero is not a regular file");
    Path huge = dir.resolve("huge");
    Files.write(huge, new byte[10 * 1024 * 1024]);
    Files.setPosixFilePermissions(huge, PosixFilePermissions.fromString("rw-------"));
    assertThatThrownBy(() -> EnvironmentConfig.read(env(huge)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("is larger than 1024 bytes");
    assertThatThrownBy(() -> EnvironmentConfig.read(env(dir.resolve("missing"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("cannot read MAILROOM_SECRET_KEY_FILE");
  }

  @Test
  void the_generated_key_is_private_and_a_loosened_one_is_refused(@TempDir Path dir)
      throws Exception {
    SecretKeyStore.Loaded first = SecretKeyStore.loadOrGenerate(dir);
    assertThat(first.generated()).isTrue();
    assertThat(Files.getPosixFilePermissions(first.file()))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    try (var files = Files.list(dir)) {
      assertThat(files).containsExactly(first.file());
    }
    assertThat(SecretKeyStore.loadOrGenerate(dir).key()).isEqualTo(first.key());

    Files.setPosixFilePermissions(first.file(), PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(() -> SecretKeyStore.loadOrGenerate(dir))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("may be read or changed by other users");
  }
}
