package dev.gantry.config.orb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Packing the source layout of CircleCI orb repositories, written into a temporary directory. */
class OrbPackerTest {
    @TempDir
    Path repo;

    private Path write(String relative, String text) throws IOException {
        Path file = repo.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    private Path src() {
        return repo.resolve("src");
    }

    @Test
    void packs_orb_yml_then_commands_jobs_executors_and_examples_each_sorted_by_file_name() throws Exception {
        write("src/@orb.yml", "version: 2.1\ndescription: A test orb\ndisplay:\n  home_url: https://example.com\n");
        write("src/examples/use.yml", "description: Use it\nusage:\n  version: 2.1\n");
        write("src/executors/default.yml", "docker:\n  - image: cimg/base:<<parameters.tag>>\n"
                + "parameters:\n  tag: {type: string, default: stable}\n");
        write("src/jobs/test.yml", "executor: default\nsteps:\n  - greet\n");
        write("src/commands/greet.yml", "steps:\n  - run: echo hello\n");
        write("src/commands/apply.yml", "steps:\n  - run: echo apply\n");
        write("src/README.md", "not yaml, not packed");

        assertThat(OrbPacker.pack(src())).isEqualTo("""
                version: 2.1
                description: A test orb
                display:
                  home_url: https://example.com
                commands:
                  apply:
                    steps:
                      - run: echo apply
                  greet:
                    steps:
                      - run: echo hello
                jobs:
                  test:
                    executor: default
                    steps:
                      - greet
                executors:
                  default:
                    docker:
                      - image: cimg/base:<<parameters.tag>>
                    parameters:
                      tag:
                        type: string
                        default: stable
                examples:
                  use:
                    description: Use it
                    usage:
                      version: 2.1
                """);
    }

    @Test
    void accepts_the_repository_root_when_it_holds_src_orb_yml() throws Exception {
        write("src/@orb.yml", "version: 2.1\n");
        write("src/commands/a.yml", "steps: [checkout]\n");
        assertThat(OrbPacker.pack(repo)).isEqualTo(OrbPacker.pack(src()));
    }

    @Test
    void an_include_becomes_the_file_text_as_a_literal_block_with_its_own_angle_brackets_escaped() throws Exception {
        write("src/@orb.yml", "version: 2.1\n");
        write("src/scripts/install.sh", "#!/bin/bash\ncat <<EOF\n<<parameters.x>>\nEOF\n");
        write("src/commands/install.yml", """
                parameters:
                  x: {type: string, default: ""}
                steps:
                  - run:
                      name: Install
                      environment:
                        X: <<parameters.x>>
                      command: <<include(scripts/install.sh)>>
                """);
        String packed = OrbPacker.pack(src());
        assertThat(packed).contains("""
                          command: |
                            #!/bin/bash
                            cat \\<<EOF
                            \\<<parameters.x>>
                            EOF
                """).contains("X: <<parameters.x>>").doesNotContain("scripts:");
    }

    @Test
    void includes_may_have_spaces_and_sit_inside_other_text_and_examples_keep_theirs() throws Exception {
        write("src/@orb.yml", "version: 2.1\n");
        write("src/scripts/v.txt", "1.2.3");
        write("src/jobs/j.yml", "steps:\n  - run: echo \"<< include( scripts/v.txt ) >>\" # not a directive\n"
                + "  - run: echo v<<include(scripts/v.txt)>> and <<include(scripts/v.txt)>>\n");
        write("src/examples/e.yml", "description: <<include(scripts/v.txt)>>\n");
        String packed = OrbPacker.pack(src());
        assertThat(packed).contains("- run: echo v1.2.3 and 1.2.3")
                .contains("description: <<include(scripts/v.txt)>>");
    }

    @Test
    void subdirectories_of_a_section_only_organise_and_two_files_with_one_name_are_refused() throws Exception {
        write("src/@orb.yml", "version: 2.1\n");
        write("src/commands/aws/login.yml", "steps: [checkout]\n");
        assertThat(OrbPacker.pack(src())).contains("commands:\n  login:\n");

        write("src/commands/login.yml", "steps: [checkout]\n");
        assertThatThrownBy(() -> OrbPacker.pack(src())).isInstanceOf(OrbPackException.class)
                .hasMessage("src/commands/aws/login.yml: defines 'login', which src/commands/login.yml already "
                        + "defines; two files of one section cannot share a name");
    }

    @Test
    void scalars_keep_the_text_they_were_written_with_and_aliases_are_resolved() throws Exception {
        write("src/@orb.yml", "version: 2.1\n");
        write("src/commands/c.yml", """
                parameters:
                  python: {type: string, default: 3.10}
                  flag: {type: boolean, default: yes}
                  when: {type: string, default: 2024-01-01}
                  quoted: {type: string, default: "true"}
                steps:
                  - &step
                    run: echo one
                  - *step
                """);
        assertThat(OrbPacker.pack(src())).contains("default: 3.10\n", "default: yes\n",
                "default: 2024-01-01\n", "default: 'true'\n", "  - run: echo one\n      - run: echo one\n")
                .doesNotContain("&", "*");
    }

    @Test
    void packing_twice_gives_the_same_bytes() throws Exception {
        write("src/@orb.yml", "version: 2.1\norbs:\n  jq: circleci/jq@3.0\n");
        write("src/jobs/b.yml", "steps: [checkout]\n");
        write("src/jobs/a.yml", "steps: [checkout]\n");
        assertThat(OrbPacker.pack(src())).isEqualTo(OrbPacker.pack(src()));
    }

    @Test
    void an_include_of_a_missing_file_names_both_files_and_where_the_directive_is() throws Exception {
        write("src/@orb.yml", "version: 2.1\n");
        write("src/commands/install.yml", "steps:\n  - run:\n      command: <<include(scripts/nope.sh)>>\n");
        assertThatThrownBy(() -> OrbPacker.pack(src())).isInstanceOf(OrbPackException.class)
                .hasMessage("src/commands/install.yml:3:16: include(scripts/nope.sh) names src/scripts/nope.sh, "
                        + "which does not exist");
    }

    @Test
    void an_include_leaving_the_source_directory_is_refused() throws Exception {
        write("secret.txt", "do not read");
        write("src/@orb.yml", "version: 2.1\n");
        write("src/jobs/j.yml", "steps:\n  - run: <<include(../secret.txt)>>\n");
        assertThatThrownBy(() -> OrbPacker.pack(src())).isInstanceOf(OrbPackException.class)
                .hasMessageStartingWith("src/jobs/j.yml:2:10: include(../secret.txt) points outside the orb's "
                        + "source directory");
    }

    @Test
    void a_yaml_error_names_the_file_line_and_column() throws Exception {
        write("src/@orb.yml", "version: 2.1\n");
        write("src/jobs/broken.yml", "steps:\n  - run: [echo\n  - checkout\n");
        assertThatThrownBy(() -> OrbPacker.pack(src())).isInstanceOf(OrbPackException.class)
                .hasMessage("src/jobs/broken.yml:4:1: invalid YAML: while parsing a flow sequence, expected ',' or "
                        + "']', but got <stream end> (the flow sequence began at 2:10)");
    }

    @Test
    void a_duplicate_key_and_a_file_that_is_not_a_map_are_refused() throws Exception {
        write("src/@orb.yml", "version: 2.1\n");
        write("src/jobs/dup.yml", "steps: [checkout]\nsteps: [checkout]\n");
        assertThatThrownBy(() -> OrbPacker.pack(src())).hasMessageStartingWith("src/jobs/dup.yml:2:1: invalid YAML:")
                .hasMessageContaining("duplicate key steps");

        Files.delete(src().resolve("jobs/dup.yml"));
        write("src/jobs/list.yml", "- checkout\n");
        assertThatThrownBy(() -> OrbPacker.pack(src()))
                .hasMessage("src/jobs/list.yml:1:1: must be a YAML map at the top, not a list");
    }

    @Test
    void a_directory_without_orb_yml_is_refused_with_what_to_give() {
        assertThatThrownBy(() -> OrbPacker.pack(repo)).isInstanceOf(OrbPackException.class)
                .hasMessageEndingWith("; give the orb's src directory");
    }
}
