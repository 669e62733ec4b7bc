package dev.gantry.cli;

import dev.gantry.config.CompileResult;
import dev.gantry.config.ConfigCompiler;
import dev.gantry.config.diag.Diagnostic;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code gantry config validate FILE}: checks the whole config (every workflow and job, filters ignored). Prints
 * {@code FILE: valid} and any warnings, exit 0; or every diagnostic, one per line, exit 1. All on standard output.
 */
@Command(name = "validate", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = {"Check a whole config file: every workflow and job, filters ignored.",
            "Prints 'FILE: valid' and any warnings (exit 0), or each problem as "
                    + "FILE:LINE:COL: error: PATH: MESSAGE (exit 1)."})
final class ConfigValidateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The config file, usually .circleci/config.yml.")
    Path file;

    @Mixin
    OrbDirOption orbs;

    @Override
    public Integer call() {
        ConfigCompiler compiler = orbs.compiler();
        PrintWriter out = spec.commandLine().getOut();
        String text = ConfigFile.read(file, out);
        if (text == null) {
            return 1;
        }
        CompileResult result = compiler.validate(file.toString(), text);
        if (result.ok()) {
            out.println(file + ": valid");
        }
        for (Diagnostic d : result.diagnostics()) {
            out.println(d.format());
        }
        out.flush();
        return result.ok() ? 0 : 1;
    }
}
