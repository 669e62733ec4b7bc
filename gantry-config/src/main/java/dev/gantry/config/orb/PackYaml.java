package dev.gantry.config.orb;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.AbstractConstruct;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Represent;
import org.yaml.snakeyaml.representer.Representer;

/**
 * Reads the files of an orb's source into plain maps, lists and strings, and writes the packed document. Aliases and
 * merge keys are resolved on reading, as {@code circleci orb pack} does. Numbers, booleans and timestamps keep the
 * text they were written with ({@code 3.10} stays {@code 3.10}, not the float 3.1), so packing never changes what
 * the compiler later reads. One instance per pack: not thread-safe.
 */
final class PackYaml {
    /** A plain scalar that YAML reads as something other than a string, kept as written. */
    record Plain(Tag tag, String text) {
    }

    /** Where each string that may hold an include directive was read, for errors about that directive. */
    private final Map<String, Mark> marks = new IdentityHashMap<>();

    /** The document in {@code text}: maps, lists, strings, {@link Plain} values and nulls. */
    Object load(String text) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false); // circleci orb pack refuses them too
        options.setMaxAliasesForCollections(1000);
        return new Yaml(new Constructor(options)).load(text);
    }

    /** Where {@code value}, a string read by {@link #load}, began; null for strings this did not read. */
    Mark markOf(String value) {
        return marks.get(value);
    }

    /** {@code document} as block-style YAML, two-space indented, multi-line strings as literal blocks. */
    static String dump(Map<String, Object> document) {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setIndent(2);
        options.setIndicatorIndent(2);
        options.setIndentWithIndicator(true);
        options.setSplitLines(false); // a long command must stay one line, as its author wrote it
        options.setWidth(Integer.MAX_VALUE);
        options.setAllowUnicode(true);
        options.setDereferenceAliases(true); // aliases were resolved on reading; repeat the values, as circleci does
        options.setLineBreak(DumperOptions.LineBreak.UNIX);
        return new Yaml(new Writer(options), options).dump(document);
    }

    private final class Constructor extends SafeConstructor {
        Constructor(LoaderOptions options) {
            super(options);
            AbstractConstruct asWritten = new AbstractConstruct() {
                @Override
                public Object construct(Node node) {
                    return new Plain(node.getTag(), ((ScalarNode) node).getValue());
                }
            };
            for (Tag tag : List.of(Tag.INT, Tag.FLOAT, Tag.BOOL, Tag.TIMESTAMP)) {
                yamlConstructors.put(tag, asWritten);
            }
            yamlConstructors.put(Tag.STR, new AbstractConstruct() {
                @Override
                public Object construct(Node node) {
                    // A new instance per node, so the identity map tells apart equal strings read in two places.
                    String value = new String(((ScalarNode) node).getValue());
                    if (value.contains("include")) {
                        marks.put(value, node.getStartMark());
                    }
                    return value;
                }
            });
        }
    }

    private static final class Writer extends Representer {
        Writer(DumperOptions options) {
            super(options);
            Represent plain = data -> {
                Plain p = (Plain) data;
                return representScalar(p.tag(), p.text(), DumperOptions.ScalarStyle.PLAIN);
            };
            representers.put(Plain.class, plain);
            representers.put(String.class, data -> {
                String s = (String) data;
                // The emitter falls back to quoting when a literal block cannot hold the text (trailing spaces).
                return representScalar(Tag.STR, s,
                        s.contains("\n") ? DumperOptions.ScalarStyle.LITERAL : DumperOptions.ScalarStyle.PLAIN);
            });
        }
    }
}
