package dev.gantry.cli;

import dev.gantry.config.CompileResult;
import dev.gantry.config.ConfigCompiler;
import dev.gantry.config.PipelineContext;
import dev.gantry.config.diag.Diagnostic;
import dev.gantry.config.plan.PlanJson;
import dev.gantry.config.plan.PlanYaml;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code gantry config process FILE}: compiles a config for one pipeline (branch or tag, parameters, number) and
 * prints the plan: JSON by default, or a flattened version-2 config with {@code --format yaml}. Exit 0 with the plan
 * on standard output and warnings on standard error; exit 1 with the errors on standard output.
 */
@Command(name = "process", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        sortOptions = false,
        description = {"Compile a config for one pipeline and print the plan.",
            "The plan lists the workflows and fully expanded jobs that would run. Exit 0 with the plan on standard "
                    + "output (warnings on standard error), or 1 with the errors on standard output."})
final class ConfigProcessCommand implements Callable<Integer> {

    /** How the plan is printed. */
    enum Format { json, yaml }

    /** The git ref of the pipeline: a branch or a tag, never both. */
    static final class Ref {
        @Option(names = "--branch", paramLabel = "B", description = "Branch of the pipeline (default: main).")
        String branch;

        @Option(names = "--tag", paramLabel = "T", description = "Tag of the pipeline, instead of a branch.")
        String tag;
    }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The config file, usually .circleci/config.yml.")
    Path file;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Ref ref;

    @Option(names = "--param", paramLabel = "NAME=VALUE",
            description = "A pipeline parameter value, checked against its declared type. Repeatable.")
    Map<String, String> params = new LinkedHashMap<>();

    @Option(names = "--pipeline-number", paramLabel = "N", description = "pipeline.number (default: ${DEFAULT-VALUE}).")
    long number = 1;

    @Option(names = "--revision", paramLabel = "SHA", description = "pipeline.git.revision.")
    String revision;

    @Option(names = "--trigger-source", paramLabel = "S", description = "pipeline.trigger_source (default: api).")
    String triggerSource;

    @Mixin
    OrbDirOption orbs;

    @Option(names = "--format", paramLabel = "FORMAT",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Format format = Format.json;

    @Option(names = "--unfiltered",
            description = "Keep every workflow and job, ignoring branch/tag filters and workflow when/unless.")
    boolean unfiltered;

    @Override
    public Integer call() {
        PipelineContext context = context();
        ConfigCompiler compiler = orbs.compiler();
        PrintWriter out = spec.commandLine().getOut();
        String text = ConfigFile.read(file, out);
        if (text == null) {
            return 1;
        }
        String name = file.toString();
        CompileResult result = unfiltered
                ? compiler.compileUnfiltered(name, text, context)
                : compiler.compile(name, text, context);
        PrintWriter err = spec.commandLine().getErr();
        for (Diagnostic warning : result.warnings()) {
            err.println(warning.format());
        }
        err.flush();
        if (result.ok()) {
            out.print(format == Format.json ? PlanJson.write(result.plan()) : PlanYaml.write(result.plan()));
        } else {
            result.errors().forEach(e -> out.println(e.format()));
        }
        out.flush();
        return result.ok() ? 0 : 1;
    }

    private PipelineContext context() {
        PipelineContext.Builder b = PipelineContext.builder().parameters(params).number(number);
        if (ref != null && ref.tag != null) {
            b.tag(ref.tag);
        } else if (ref != null && ref.branch != null) {
            b.branch(ref.branch);
        }
        if (revision != null) {
            b.revision(revision);
        }
        if (triggerSource != null) {
            b.triggerSource(triggerSource);
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
