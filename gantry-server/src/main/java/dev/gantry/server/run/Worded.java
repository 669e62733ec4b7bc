package dev.gantry.server.run;

import java.util.Arrays;

/** A status with the word CircleCI's API and Gantry's database use for it. */
interface Worded {
    /** The word in the API and in the database. */
    String word();

    /** True once nothing can change it any more. */
    boolean terminal();

    /**
     * The constant of {@code type} whose word is {@code word}.
     *
     * @throws IllegalArgumentException naming {@code what} when there is none
     */
    static <E extends Enum<E> & Worded> E ofWord(Class<E> type, String word, String what) {
        return Arrays.stream(type.getEnumConstants()).filter(s -> s.word().equals(word)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown " + what + " '" + word + "'"));
    }
}
