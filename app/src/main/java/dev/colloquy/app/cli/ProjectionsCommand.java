package dev.colloquy.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.app.Colloquy;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.persistence.Database;
import dev.colloquy.persistence.readside.ReadSide;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code colloquy projections rebuild}: throw the read tables away so that they are refilled from the journal. */
@Command(name = "projections", mixinStandardHelpOptions = true,
    description = "Manages the read side (session list, messages, billing records) projected from the journal.",
    subcommands = ProjectionsCommand.Rebuild.class)
final class ProjectionsCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return 2;
  }

  @Command(name = "rebuild", mixinStandardHelpOptions = true,
      description = {"Empties the read tables and resets the projection's offsets; the next start of the server "
          + "refills them from the journal. Run it with the server stopped (an embedded database refuses otherwise)."})
  static final class Rebuild implements Callable<Integer> {

    @Option(names = "--data-dir", description = "Data directory (env COLLOQUY_DATA_DIR, default ./data)")
    Path dataDir;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
      Config overrides = dataDir == null ? ConfigFactory.empty()
          : ConfigFactory.parseMap(Map.of("colloquy.storage.data-dir", dataDir.toString()));
      ColloquySettings settings = ColloquySettings.create(Colloquy.loadConfig(overrides));
      try (Database database = Database.openExisting(settings.storage())) {
        ReadSide.rebuild(database.dataSource());
      }
      spec.commandLine().getOut().println(
          "Read tables emptied and their offsets reset; the server refills them from the journal when it starts.");
      return 0;
    }
  }
}
