package dev.colloquy.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.app.Colloquy;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.http.auth.TenantAdminRoutes;
import dev.colloquy.persistence.Database;
import dev.colloquy.persistence.tenant.KeyKind;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code colloquy tenants}: create and list tenants, issue and revoke their API keys, on the data
 * directory (no server running on it) or through a running server's admin API with {@code --server}.
 * Every answer is one JSON line; a new key is printed only here, once.
 */
@Command(name = "tenants", mixinStandardHelpOptions = true,
    description = {"Creates and lists tenants and issues and revokes their API keys.",
        "Works on the data directory when no server runs on it, or on a running server with --server "
            + "(admin token from COLLOQUY_ADMIN_TOKEN)."},
    subcommands = {TenantsCommand.Create.class, TenantsCommand.ListTenants.class, TenantsCommand.Keys.class})
final class TenantsCommand {

  /** Where the tenants are: a running server or the data directory. */
  static final class Target {

    @Option(names = "--server", paramLabel = "URL", description = "A running Colloquy, e.g. http://localhost:8080")
    URI server;

    @Option(names = "--data-dir", description = "Data directory (env COLLOQUY_DATA_DIR, default ./data)")
    Path dataDir;

    TenantAdmin open() {
      Config overrides = dataDir == null ? ConfigFactory.empty()
          : ConfigFactory.parseMap(Map.of("colloquy.storage.data-dir", dataDir.toString()));
      ColloquySettings settings = ColloquySettings.create(Colloquy.loadConfig(overrides));
      if (server == null) {
        return new LocalTenantAdmin(Database.openExisting(settings.storage()));
      }
      String token = settings.admin().token().orElseThrow(() -> new IllegalArgumentException(
          "--server needs the operator's admin token in COLLOQUY_ADMIN_TOKEN"));
      return new RemoteTenantAdmin(server, token);
    }

    /** Runs {@code work} on the tenants and prints its lines. */
    int print(CommandSpec spec, Function<TenantAdmin, List<ObjectNode>> work) {
      List<ObjectNode> lines;
      try (TenantAdmin admin = open()) {
        lines = work.apply(admin);
      }
      PrintWriter out = spec.commandLine().getOut();
      lines.forEach(line -> out.println(line.toString()));
      out.flush();
      return 0;
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true,
      description = "Creates a tenant with one API key and prints {\"tenant_id\",\"name\",\"api_key\"}; "
          + "the key is shown only now.")
  static final class Create implements Callable<Integer> {

    @Parameters(paramLabel = "NAME", description = "Letters, digits, '.', '-' or '_', at most 64, unique")
    String name;

    @Mixin
    Target target;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
      // Refused before the database is opened, with the admin API's own rule.
      if (!TenantAdminRoutes.NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "a tenant name is 1 to 64 letters, digits, '.', '-' or '_', starting with a letter or digit");
      }
      return target.print(spec, admin -> List.of(admin.create(name)));
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "Prints every tenant, one {\"tenant_id\",\"name\",\"created_at\"} per line.")
  static final class ListTenants implements Callable<Integer> {

    @Mixin
    Target target;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
      return target.print(spec, TenantAdmin::list);
    }
  }

  @Command(name = "keys", mixinStandardHelpOptions = true, description = "Issues and revokes a tenant's API keys.",
      subcommands = {Keys.CreateKey.class, Keys.Revoke.class})
  static final class Keys {

    @Command(name = "create", mixinStandardHelpOptions = true,
        description = "Issues another API key and prints {\"tenant_id\",\"key_id\",\"api_key\"}; "
            + "the key is shown only now.")
    static final class CreateKey implements Callable<Integer> {

      @Parameters(paramLabel = "TENANT", description = "The tenant's id or name")
      String tenant;

      @Option(names = "--public", description = "A public key (cpk_…) for the web widget: it opens only the "
          + "widget's routes, only from the tenant's allowed origins")
      boolean publicKey;

      @Mixin
      Target target;

      @Spec
      CommandSpec spec;

      @Override
      public Integer call() {
        return target.print(spec, admin -> List.of(admin.issueKey(tenant, publicKey ? KeyKind.PUBLIC : KeyKind.SECRET)));
      }
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true,
        description = "Revokes an API key: every node refuses it within 5 seconds.")
    static final class Revoke implements Callable<Integer> {

      @Parameters(paramLabel = "KEY_ID", description = "The key's id, the part between 'ck_' and the next '_'")
      String keyId;

      @Mixin
      Target target;

      @Spec
      CommandSpec spec;

      @Override
      public Integer call() {
        return target.print(spec, admin -> List.of(admin.revoke(keyId)));
      }
    }
  }
}
