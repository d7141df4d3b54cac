"""The semantic level's value estimator: how much a guest would like a dish, read from words.

At the semantic level of menu design (level 2) an agent sees the recipes and partial profiles
of the two guests, never a number. This module turns what is seen into numbers with a fixed,
offline reading of a profile against each dish's cookbook entry (name, ingredients,
condiments, keywords, description, cuisine), and gives the semantic oracle: the menu that is
best for the values so estimated, within the true stock.

**Scale.** Ratings are on the guests' own scale. The per-guest value files rate each dish from
0 (cannot or will not eat it) to just under 2 (a favourite); a dish that nothing rules out
averages about 1.1 there, which is :data:`NEUTRAL`, and :data:`MAX_RATING` is 2. A dish's
value to a guest is ``round(rating × base_value, 2)`` with ``base_value(n) = n + 0.2·n^1.5``
(n = units in the recipe, which is public), as in the game.

**Reading a profile.** A dish's rating is a liking times the exclusions that apply to it:

* *liking*: :data:`NEUTRAL` plus the change each preference brings when the dish's words speak
  to it (:data:`PREFERENCES`: low-carb, health goals, dining style, spice level, traditional
  dishes, the recent dietary focus), plus the cuisine's (:data:`CUISINE_MATCH`,
  :data:`CUISINE_RELATED`), kept within [:data:`FLOOR`, :data:`MAX_RATING`];
* *exclusions*: an allergen (:data:`ALLERGIES`), or a food a diet (:data:`DIETS`) or a religion
  (:data:`RELIGIONS`) rules out, found in the dish. Each rule has a factor (0 for allergies,
  vegetarian, vegan, halal and kosher; gluten-free and dairy-free are preferences and keep a
  little), applied in full when the food is an ingredient and in part when only the name,
  keywords, description or a condiment mention it (:data:`WHERE`).

A hidden field (``{}``, ``[]`` or ``None``) contributes nothing, so a profile with nothing
revealed rates every dish :data:`NEUTRAL`. The one exception is the cuisine: when the cultural
preferences are hidden, the guest's nationality (always shown) suggests a home cuisine
(:data:`NATIONAL_CUISINES`, :data:`NATIONAL_MATCH`). Nothing here reads a guest's true
ratings, values or full profile.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from mase.envs.deliberation.games import MenuGame
from mase.envs.deliberation.scoring import _milp

#: The rating of a dish that nothing known speaks to.
NEUTRAL = 1.1
#: The top of the guests' rating scale.
MAX_RATING = 2.0
#: The lowest rating preferences alone can give (only an exclusion goes below).
FLOOR = 0.3

# -- the words of foods ---------------------------------------------------------------------
# Each set is matched as whole words in lowercase text, a plural "s"/"es" allowed ("egg" finds
# "eggs", not "eggplants").

PORK = ("pork", "bacon", "ham", "guanciale", "pancetta", "prosciutto", "lard", "sausage",
        "chorizo", "salami")  # fmt: skip
MEAT = PORK + ("meat", "meaty", "beef", "veal", "chicken", "duck", "lamb", "mutton", "goat",
               "turkey", "venison", "rabbit", "steak", "brisket")  # fmt: skip
SHELLFISH = ("shrimp", "prawn", "crab", "lobster", "crayfish", "scallop", "mussel", "clam",
             "oyster")  # fmt: skip
#: Sea creatures that are neither fish nor shellfish (kosher rules them out too).
MOLLUSCS = ("octopus", "squid", "calamari")
FISH = ("fish", "seafood", "sea bass", "salmon", "tuna", "cod", "anchovy", "sardine",
        "mackerel", "bonito", "dashi", "fish sauce", "oyster sauce")  # fmt: skip
DAIRY = ("dairy", "milk", "cream", "ice cream", "cheese", "butter", "ghee", "yogurt", "yoghurt",
         "paneer", "mozzarella", "feta", "parmesan", "pecorino", "mascarpone", "ricotta",
         "bechamel", "béchamel", "custard")  # fmt: skip
EGG = ("egg", "mayonnaise", "custard", "meringue")
GLUTEN = ("gluten", "wheat", "flour", "noodle", "pasta", "macaroni", "spaghetti", "bread",
          "bun", "dumpling", "wonton", "pastry", "phyllo", "baguette", "batter", "tortilla",
          "biscuit", "sandwich", "pizza", "naan", "couscous", "barley", "rye", "crust",
          "lasagna", "pelmeni")  # fmt: skip
#: Forms of the gluten words made without wheat.
GLUTEN_FREE_FORMS = ("rice noodle", "rice flour", "corn tortilla", "rice paper")
SOY = ("soy", "soy sauce", "soybean", "tofu", "miso", "edamame", "doubanjiang", "tempeh")
PEANUT = ("peanut", "satay")
TREE_NUT = ("nut", "nutty", "walnut", "almond", "cashew", "pistachio", "hazelnut", "pecan")
ALCOHOL = ("wine", "beer", "rum", "brandy", "sake", "mirin", "liqueur", "alcohol", "cognac")
STARCH = ("rice", "noodle", "pasta", "macaroni", "flour", "bread", "potato", "bun", "dumpling",
          "pizza", "naan", "sugar", "dessert", "pastry")  # fmt: skip
SWEET = ("dessert", "sweet", "sugar", "syrupy", "caramelized", "honey", "candied")
SPICY = ("spicy", "chili", "chilli", "chile", "hot", "gochujang", "doubanjiang", "sambal",
         "chili oil", "chili powder", "chili flakes", "wasabi", "cayenne", "jalapeño")  # fmt: skip
PROTEIN = MEAT + SHELLFISH + MOLLUSCS + FISH + ("egg", "tofu", "paneer", "lentil", "chickpea",
                                                "protein")  # fmt: skip
LIGHT = ("healthy", "light", "fresh", "steamed", "salad", "vegetable", "broth", "nutritious",
         "balanced", "refreshing", "grilled")  # fmt: skip
RICH = ("fried", "creamy", "cheesy", "rich", "indulgent", "decadent", "luxurious", "dessert",
        "syrupy", "buttery", "caramelized", "sweet", "baked")  # fmt: skip
SALTY = ("soy sauce", "fish sauce", "oyster sauce", "miso", "cured", "pickled", "fermented",
         "salty", "ham", "bacon", "hoisin sauce", "doubanjiang")  # fmt: skip
COMFORT = ("comfort", "comforting", "hearty", "stew", "stewed", "soup", "creamy", "cheesy",
           "baked", "warm", "braised", "slow-cooked", "rich")  # fmt: skip
INDULGENT = ("rich", "creamy", "cheesy", "fried", "dessert", "sweet", "luxurious", "decadent",
             "indulgent", "syrupy", "caramelized", "crispy")  # fmt: skip
SIMPLE = ("simple", "light", "fresh", "classic", "steamed")
SNACK = ("snack", "street food", "bite-sized", "dip", "portable", "side dish", "skewer")
TRADITIONAL = ("traditional", "classic", "authentic")

# -- the rules ------------------------------------------------------------------------------


class Rule(NamedTuple):
    """One exclusion: foods a guest avoids, and what a dish that has them is worth.

    Attributes:
        terms: the food words (whole words, plurals allowed).
        factor: the rating's multiplier when a term is an ingredient of the dish.
        unless: forms of the foods that are safe: removed from the dish's words before
            matching, and where the ingredients name one, the name, keywords and
            description are read as speaking of it ("noodles" in a dish of rice noodles).
    """

    terms: tuple[str, ...]
    factor: float
    unless: tuple[str, ...] = ()


#: Where in the dish an excluded food is found -> how much of the rule's penalty applies:
#: the factor becomes ``1 - share·(1 - factor)``. The strongest place counts.
WHERE = {
    "ingredients": 1.0,  # an ingredient: the food is in the dish
    "named": 0.5,  # only the name or a keyword: often a style ("Butter Chicken") or a guess
    "description": 0.4,  # only the description: a garnish, a side or one version of the dish
    "condiments": 0.25,  # only a condiment: a little of it, and it can be left out
}

#: Allergy, as a profile words it (a word at the start of a word of the allergy) -> the foods
#: that carry it. An allergy not listed here is matched as its own word (singular).
ALLERGIES = {
    "peanut": Rule(PEANUT, 0.0),  # peanuts, and the peanut sauce of satay
    "nut": Rule(PEANUT + TREE_NUT, 0.0),  # "nuts": tree nuts and, by caution, peanuts
    "tree nut": Rule(TREE_NUT, 0.0),
    "dairy": Rule(DAIRY, 0.0),
    "milk": Rule(DAIRY, 0.0),
    "lactose": Rule(DAIRY, 0.0),
    "egg": Rule(EGG, 0.0),
    "shellfish": Rule(SHELLFISH, 0.0),  # crustaceans and bivalves (octopus is neither)
    "seafood": Rule(SHELLFISH + MOLLUSCS + FISH, 0.0),
    "fish": Rule(FISH, 0.0),
    "soy": Rule(SOY, 0.0),
    "gluten": Rule(GLUTEN, 0.0, GLUTEN_FREE_FORMS),
    "wheat": Rule(GLUTEN, 0.0, GLUTEN_FREE_FORMS),
    "tomato": Rule(("tomato", "ketchup", "marinara"), 0.0),
    "sesame": Rule(("sesame", "tahini"), 0.0),
}

#: Dietary preference (a "Dietary Preferences" key that is true) -> what it rules out.
DIETS = {
    "vegetarian": Rule(MEAT + FISH + SHELLFISH + MOLLUSCS, 0.0),  # no meat, fish or seafood
    "vegan": Rule(MEAT + FISH + SHELLFISH + MOLLUSCS + DAIRY + EGG + ("honey",), 0.0),
    "pescatarian": Rule(MEAT, 0.0),  # fish allowed, meat not
    "gluten-free": Rule(GLUTEN, 0.2, GLUTEN_FREE_FORMS),  # a preference: wheat is avoided
    "dairy-free": Rule(DAIRY, 0.2),  # a preference: dairy is avoided
    # "low-carb" is a preference (PREFERENCES)
}

#: Religious or ethical consideration (an "Ethical and Religious Considerations" key that is
#: true, or a word of its "Ethical Eating Preferences") -> what it rules out.
RELIGIONS = {
    "halal": Rule(PORK, 0.0),  # no pork (alcohol: ALCOHOL_RULE)
    "kosher": Rule(PORK + SHELLFISH + MOLLUSCS, 0.0),  # no pork, shellfish or other sea
    # creatures without fins and scales (alcohol: ALCOHOL_RULE; meat with dairy: KOSHER_MIXED)
    "vegetarian": DIETS["vegetarian"],  # an ethical preference worded as a diet
    "vegan": DIETS["vegan"],
    "plant-based": DIETS["vegan"],
    # "Buddhist", "Organic", "Cruelty-free", "Sustainable": no rule (practice varies, and
    # nothing in a cookbook entry says how a dish was sourced)
}
#: Halal and kosher: no alcohol (wine in a braise).
ALCOHOL_RULE = Rule(ALCOHOL, 0.0)
#: Kosher: the factor of a dish whose ingredients mix meat and dairy.
KOSHER_MIXED = 0.3

#: A trait of the guest -> pairs of (dish words, change of rating): a dish with any of the
#: words (in its name, ingredients, keywords, condiments or description) moves by the change.
#: Traits (:func:`traits`): "diet:", "health:" and "style:" name a yes/no key of the dietary
#: preferences, health and fitness goals, and personality and dining style that is true;
#: "spice:" the spice level preference; "traditional" a liking for traditional dishes;
#: "focus:" a word of the recent dietary focus.
PREFERENCES = {
    "diet:low-carb": ((STARCH, -0.4),),  # rice, noodles, bread, potatoes and sweets down
    "health:calorie-conscious": ((LIGHT, 0.05), (RICH, -0.15)),  # light up, rich down
    "health:weight-loss focus": ((LIGHT, 0.05), (RICH, -0.05)),
    "health:low-sugar": ((SWEET, -0.2),),  # sweets down
    "health:low-sodium": ((SALTY, -0.05),),  # salty sauces and cured food down
    "health:protein-rich": ((PROTEIN, 0.1), (("dessert",), -0.15)),  # meat, fish, eggs up
    "health:muscle-building focus": ((PROTEIN, 0.05), (("dessert",), -0.15)),
    "style:comfort food lover": ((COMFORT, 0.05),),  # stews, soups, creamy and baked dishes
    "style:indulgent food preferences": ((INDULGENT, 0.1),),  # rich, fried, sweet dishes
    "style:minimalist dining": ((SIMPLE, 0.05),),  # simple, light dishes
    "style:snack-friendly": ((SNACK, 0.05),),  # snacks, street food, dips
    # "Adventurous Eater", "Social Eater": no rule (no dish words speak to them)
    "spice:mild": ((SPICY, -0.1),),  # a spicy dish down for a mild palate
    "spice:spicy": ((SPICY, 0.15),),  # and up for a spicy one
    "spice:hot": ((SPICY, 0.15),),
    "traditional": ((TRADITIONAL, 0.05),),  # a dish that calls itself traditional or classic
    "focus:healthy": ((LIGHT, 0.1),),  # the recent dietary focus, in its own words
    "focus:light": ((LIGHT, 0.1),),
    "focus:comfort": ((COMFORT, 0.15),),
    "focus:protein": ((PROTEIN, 0.1),),
    "focus:indulgent": ((INDULGENT, 0.05),),
    "focus:traditional": ((TRADITIONAL, 0.05),),
    "focus:simple": ((SIMPLE, 0.1),),
}

#: A dish of the guest's preferred cuisine ("Cultural Preferences"), or of a related one.
CUISINE_MATCH = 0.3
CUISINE_RELATED = 0.05
#: A dish of the home cuisine of the guest's nationality, when the cultural preferences are
#: hidden.
NATIONAL_MATCH = 0.2

#: Cuisine, as a profile words it -> cuisines close to it (words of a dish's cuisine).
RELATED_CUISINES = {
    "middle eastern": ("greek", "mediterranean", "turkish", "lebanese", "moroccan"),
    "greek": ("mediterranean", "middle eastern", "italian"),
    "italian": ("mediterranean", "french", "greek"),
    "french": ("italian", "mediterranean"),
    "british": ("irish", "american", "french"),
    "irish": ("british", "american"),
    "american": ("mexican", "british"),
    "mexican": ("latin", "spanish", "american"),
    "brazilian": ("latin", "portuguese", "mexican"),
    "japanese": ("korean",),
    "korean": ("japanese",),
    "thai": ("southeast asia", "vietnamese"),
    "vietnamese": ("southeast asia", "thai"),
    "indian": ("pakistani", "sri lankan"),
}

#: Nationality (as a profile words it) -> its home cuisine (a word of a dish's cuisine).
NATIONAL_CUISINES = {
    "american": "american", "canadian": "american", "mexican": "mexican",
    "japanese": "japanese", "chinese": "chinese", "korean": "korean", "indian": "indian",
    "italian": "italian", "french": "french", "greek": "greek", "russian": "russian",
    "egyptian": "middle eastern", "lebanese": "middle eastern", "turkish": "middle eastern",
    "irish": "british", "british": "british", "english": "british", "brazilian": "brazilian",
    "thai": "southeast asia", "vietnamese": "southeast asia", "malaysian": "southeast asia",
    "indonesian": "southeast asia", "filipino": "southeast asia", "spanish": "spanish",
}  # fmt: skip

# -- matching -------------------------------------------------------------------------------


class _Dish(NamedTuple):
    """A dish's words, lowercased, by where they come from."""

    ingredients: str
    named: str  # the name and the keywords
    condiments: str
    description: str
    cuisine: str

    @property
    def text(self) -> str:
        """All its words but the cuisine."""
        return " | ".join((self.ingredients, self.named, self.condiments, self.description))


def _words(items: Iterable[Any]) -> str:
    return " | ".join(str(x).lower() for x in items)


def _dish(name: str, entry: Mapping[str, Any]) -> _Dish:
    return _Dish(
        ingredients=_words(entry.get("ingredients") or {}),
        named=_words([name, *(entry.get("keywords") or [])]),
        condiments=_words(entry.get("condiments") or []),
        description=str(entry.get("description") or "").lower(),
        cuisine=str(entry.get("cuisine") or "").lower(),
    )


@cache
def _pattern(terms: tuple[str, ...]) -> re.Pattern[str]:
    """Any of the terms as a whole word, a plural allowed."""
    alternatives = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?:s|es)?(?![\w-])")


def _has(text: str, terms: Sequence[str], unless: Sequence[str] = ()) -> bool:
    """Whether the text has any of the terms, once the safe forms are taken out."""
    for phrase in unless:
        text = text.replace(phrase, " ")
    return bool(terms) and bool(_pattern(tuple(terms)).search(text))


def _exclusion(dish: _Dish, rule: Rule) -> float:
    """The factor of one rule on a dish (:data:`WHERE`)."""
    safe = any(phrase in dish.ingredients for phrase in rule.unless)
    factor = 1.0
    for where, share in WHERE.items():
        if safe and where != "ingredients":
            continue
        if _has(getattr(dish, where), rule.terms, rule.unless):
            factor = min(factor, 1.0 - share * (1.0 - rule.factor))
    return factor


# -- reading a profile ----------------------------------------------------------------------


def _flags(field: Any) -> list[str]:
    """The true keys of a field of yes/no answers (or the items of a list), lowercased."""
    if isinstance(field, Mapping):
        return [str(k).lower().strip() for k, v in field.items() if v is True]
    if isinstance(field, list | tuple):
        return [str(k).lower().strip() for k in field]
    return []


def _allergies(field: Any) -> list[str]:
    """The allergies of a "Food Allergies" field (a list, or words separated by commas)."""
    items = re.split(r"[,;/]| and ", field) if isinstance(field, str) else list(field or [])
    out = [str(a).lower().strip() for a in items]
    return [a for a in out if a and a not in ("none", "no", "n/a", "no known allergies")]


def _allergy_rule(allergy: str) -> Rule:
    for key in sorted(ALLERGIES, key=len, reverse=True):
        if re.search(rf"\b{re.escape(key)}", allergy):
            return ALLERGIES[key]
    return Rule((re.sub(r"(?<=[^s])s$", "", allergy),), 0.0)


def _beliefs(profile: Mapping[str, Any]) -> set[str]:
    """The religious and ethical considerations that :data:`RELIGIONS` reads."""
    ethics = profile.get("Ethical and Religious Considerations") or {}
    beliefs = set(_flags(ethics))
    if isinstance(ethics, Mapping):
        stated = str(ethics.get("Ethical Eating Preferences") or "").lower()
        beliefs |= {b for b in RELIGIONS if b in stated}
    return beliefs


def traits(profile: Mapping[str, Any]) -> set[str]:
    """The guest's traits that :data:`PREFERENCES` reads (a hidden field gives none)."""
    out = {f"diet:{k}" for k in _flags(profile.get("Dietary Preferences"))}
    out |= {f"health:{k}" for k in _flags(profile.get("Health and Fitness Goals"))}
    out |= {f"style:{k}" for k in _flags(profile.get("Personality and Dining Style"))}
    culture = profile.get("Cultural Preferences") or {}
    if isinstance(culture, Mapping):
        spice = str(culture.get("Spice Level Preference") or "").lower().strip()
        if spice:
            out.add(f"spice:{spice}")
        if culture.get("Traditional Dishes") is True:
            out.add("traditional")
    status = profile.get("Recent Status") or {}
    if isinstance(status, Mapping):
        focus = str(status.get("Recent Dietary Focus") or "").lower()
        out |= {t for t in PREFERENCES if t.startswith("focus:") and t[6:] in focus}
    return out


def _cuisine(profile: Mapping[str, Any], dish: _Dish) -> float:
    """The change of rating the dish's cuisine brings."""
    culture = profile.get("Cultural Preferences") or {}
    wanted = ""
    if isinstance(culture, Mapping):
        wanted = str(culture.get("Cuisine Type") or "").lower().strip()
    if wanted:
        if wanted in dish.cuisine or (dish.cuisine and dish.cuisine in wanted):
            return CUISINE_MATCH
        if any(r in dish.cuisine for r in RELATED_CUISINES.get(wanted, ())):
            return CUISINE_RELATED
        return 0.0
    home = NATIONAL_CUISINES.get(str(profile.get("Nationality") or "").lower().strip())
    if home and (home in dish.cuisine or (dish.cuisine and dish.cuisine in home)):
        return NATIONAL_MATCH
    return 0.0


def _liking(profile: Mapping[str, Any], dish: _Dish, found: set[str]) -> float:
    """:data:`NEUTRAL` plus the changes the preferences bring, within the scale."""
    change = _cuisine(profile, dish)
    for trait in sorted(found):
        for terms, delta in PREFERENCES.get(trait, ()):
            if _has(dish.text, terms):
                change += delta
    return float(np.clip(NEUTRAL + change, FLOOR, MAX_RATING))


def _exclusions(profile: Mapping[str, Any], dish: _Dish) -> float:
    """The product of the factors of the exclusions that apply to the dish."""
    factor = 1.0
    for allergy in _allergies(profile.get("Food Allergies")):
        factor *= _exclusion(dish, _allergy_rule(allergy))
    diets = set(_flags(profile.get("Dietary Preferences")))
    for diet in sorted(diets & set(DIETS)):
        factor *= _exclusion(dish, DIETS[diet])
    beliefs = _beliefs(profile)
    for belief in sorted((beliefs & set(RELIGIONS)) - diets):
        factor *= _exclusion(dish, RELIGIONS[belief])
    if beliefs & {"halal", "kosher"}:
        factor *= _exclusion(dish, ALCOHOL_RULE)
    if "kosher" in beliefs and _has(dish.ingredients, MEAT) and _has(dish.ingredients, DAIRY):
        factor *= KOSHER_MIXED
    return factor


# -- the API --------------------------------------------------------------------------------


def base_value(units: int) -> float:
    """A dish's base value from the units in its recipe: ``n + 0.2·n^1.5``, to 0.01."""
    n = float(units)
    return round(n + 0.2 * n**1.5, 2)


def estimate_ratings(
    profile: Mapping[str, Any], cookbook: Mapping[str, Mapping[str, Any]], dishes: Sequence[str]
) -> np.ndarray:
    """Each dish's estimated rating by one guest, from what is known of the guest.

    Args:
        profile: a (partial) profile in the ``get_full_profile`` form ("Name", "Food
            Allergies", ...); a hidden field is ``{}``, ``[]`` or ``None``.
        cookbook: dish -> its cookbook entry (``ingredients``, ``condiments``, ``keywords``,
            ``description``, ``cuisine``). A dish without an entry is read from its name.
        dishes: the dishes to rate.

    Returns:
        float array [dishes] of ratings in [0, :data:`MAX_RATING`]: :data:`NEUTRAL` where
        nothing known speaks to a dish, 0 where an allergy or a strict diet rules it out.
    """
    found = traits(profile)
    out = []
    for name in dishes:
        dish = _dish(name, cookbook.get(name) or {})
        out.append(_liking(profile, dish, found) * _exclusions(profile, dish))
    return np.array(out, dtype=np.float64)


def _hidden(x: Any) -> bool:
    return x is None or (isinstance(x, Mapping | list | tuple | str) and not x)


def merge_profiles(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """What two partial views of the same guest reveal together.

    A field revealed to either view is known: a hidden field (``None``, ``{}``, ``[]``) takes
    the other view's, dicts are joined key by key (``a`` first where both have a key) and
    lists without repeats, so nothing revealed to either is lost.

    Raises:
        ValueError: the views name different guests.
    """
    if not _hidden(a.get("Name")) and not _hidden(b.get("Name")) and a["Name"] != b["Name"]:
        raise ValueError(f"views of different guests: {a['Name']!r} and {b['Name']!r}")
    merged: dict[str, Any] = {}
    for key in [*a, *(k for k in b if k not in a)]:
        x, y = a.get(key), b.get(key)
        if isinstance(x, Mapping) and isinstance(y, Mapping):
            merged[key] = {**y, **x}
        elif isinstance(x, list | tuple) and isinstance(y, list | tuple):
            merged[key] = list(dict.fromkeys([*x, *y]))
        elif key not in a or (_hidden(x) and not _hidden(y)):
            merged[key] = y
        else:
            merged[key] = x
    return merged


def estimate_values(game: MenuGame, views: Sequence[Sequence[Mapping[str, Any]]]) -> np.ndarray:
    """Each guest's estimated value of each dish, from the views the estimate may use.

    Args:
        game: the menu game (only its dishes, recipes and cookbook are read).
        views: profile pairs ``(guest 0, guest 1)`` as some agent sees them, e.g.
            ``[game.profiles[0]]`` for agent 0 alone, or ``game.profiles`` for both agents
            (the semantic oracle). Each guest's views are merged (:func:`merge_profiles`).

    Returns:
        float array [2, dishes]: estimated rating × base value, rounded to 0.01.
    """
    bases = np.array([base_value(int(n)) for n in game.recipes.sum(axis=1)])
    out = np.zeros((2, len(game.dishes)))
    for k in (0, 1):
        merged: dict[str, Any] = {}
        for view in views:
            merged = merge_profiles(merged, view[k])
        out[k] = np.round(estimate_ratings(merged, game.cookbook, game.dishes) * bases, 2)
    return out


def semantic_menu(game: MenuGame, views: Sequence[Sequence[Mapping[str, Any]]]) -> tuple[int, ...]:
    """The menu that is best for the estimated values, within the true stock.

    Args:
        game: the menu game.
        views: as in :func:`estimate_values`.

    Returns:
        the chosen dish indices, sorted: the optimum's 0/1 program (each dish at most once,
        the recipes within the stock) solved for the two guests' mean estimated value.
    """
    values = estimate_values(game, views).mean(axis=0)
    x = _milp(values, game.recipes.T.astype(np.float64), game.stock.astype(np.float64))
    return tuple(int(i) for i in np.flatnonzero(x))
