"""From a training goal to ranked, buildable options: "train M on T tokens in D days within P MW" sized on each
allowed system and fabric (:mod:`.sizing`), each option a generated, analysed design (:mod:`.options`)."""
