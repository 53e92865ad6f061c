"""Why a photo, or one sheet in it, is not read: the reader's refusals, each a sentence of the message
catalogues (replay/i18n: en, ja, ko) with its fields, so that the command line and the upload page say
it in their reader's language, and say how to take a photo that can be read (:data:`RETAKE`, as phone
scanning apps say at capture). No image library here: the service and the command line name these
without loading OpenCV."""

from __future__ import annotations

from typing import Final

from replay.engine import InputError
from replay.i18n import DEFAULT, N_, fill, gettext

#: What a refusal for a photo that cannot be read says to do instead (as phone OMR apps say at capture).
RETAKE: Final = N_(
    "retake the photo: the whole sheet in frame with all four corner squares, the phone held steady "
    "and parallel to the sheet, close enough that the sheet fills most of the photo, in even light"
)
#: The refusals of a photo (templates of the catalogues: :meth:`NotASheet.said`).
NO_SHEET: Final = N_("no game sheet here: {found} of its 4 corner markers found; {retake}")
NO_QR: Final = N_(
    "no readable QR code where a game sheet has its two (the large one at the top right, the small one "
    "left of it): {retake}; or give its match id by hand: --match ID"
)
NO_QR_FAR: Final = N_(
    "no readable QR code where a game sheet has its two: the sheet is too small in the photo ({density} "
    "pixels a millimetre; its codes need {need} or more): come closer; {retake}; or give its match id by "
    "hand: --match ID"
)
NO_QR_SHAKEN: Final = N_(
    "no readable QR code where a game sheet has its two: the photo is shaken (the corner squares smeared "
    "by about {smear} mm): hold the phone still; {retake}; or give its match id by hand: --match ID"
)
#: ... nor, on the sheet's paper, the match id printed at its top left (replay.sources.scan.printed).
NO_ID: Final = N_(
    "neither of the game sheet's QR codes can be read, nor the match id printed at its top left, for "
    "certain: keep glare, shadow and folds off the top of the sheet; {retake}; or give its match id by "
    "hand: --match ID"
)
NO_ID_FAR: Final = N_(
    "neither of the game sheet's QR codes can be read, nor the match id printed at its top left, for "
    "certain: the sheet is too small in the photo ({density} pixels a millimetre; its codes need {need} "
    "or more): come closer; {retake}; or give its match id by hand: --match ID"
)
NO_ID_SHAKEN: Final = N_(
    "neither of the game sheet's QR codes can be read, nor the match id printed at its top left, for "
    "certain: the photo is shaken (the corner squares smeared by about {smear} mm): hold the phone still, "
    "or lean it on something; {retake}; or give its match id by hand: --match ID"
)
#: A sheet whose own match id was read (its QR code, or the printed text) and is not the one ``--match``
#: gives it (issue 39: a judge names a sheet by hand only when it cannot name itself).
MATCH_DIFFERS: Final = N_(
    "the sheet's QR code says match {match}, not {given} as --match gives it: left out; check which "
    "sheet this is (- in --match reads a sheet's own id)"
)
MATCH_DIFFERS_PRINTED: Final = N_(
    "the match id printed on the sheet reads {match}, not {given} as --match gives it: left out; check "
    "which sheet this is (- in --match reads a sheet's own id)"
)
#: A sheet named by --match whose ruleset line could not be read either.
NO_RULESET: Final = N_(
    "match {match} (given with --match): the ruleset printed on the sheet cannot be read either: give it "
    "with --ruleset"
)
PART_OUT: Final = N_(
    "another game sheet is partly in this photo ({found} of its 4 corner markers found) and is not read: "
    "photograph each sheet on its own, or {retake}"
)
PART_HIDDEN: Final = N_(
    "another game sheet in this photo is not read: {found} of its 4 corner markers found, the others "
    "hidden or unreadable where the photo shows paper: photograph each sheet on its own, or {retake}"
)
UNDER: Final = N_(
    "a game sheet in this photo lies partly under another one and is not read (its hidden boxes would "
    "be read as empty): photograph each sheet on its own, none over another"
)
OVERLAP: Final = N_(
    "two game sheets overlap in this photo and which lies on top cannot be told: neither is read; "
    "photograph each sheet on its own, none over another"
)

#: The refusals above that name the command line's options, as the upload page says them: its own fields
#: (the photo's match id box, the ruleset menu; streams/http/intake.py), the fields filled the same.
ON_THE_PAGE: Final[dict[str, str]] = {
    NO_QR: N_(
        "no readable QR code where a game sheet has its two (the large one at the top right, the small one "
        "left of it): {retake}; or type its match id in the match id box beside the photo"
    ),
    NO_QR_FAR: N_(
        "no readable QR code where a game sheet has its two: the sheet is too small in the photo ({density} "
        "pixels a millimetre; its codes need {need} or more): come closer; {retake}; or type its match id "
        "in the match id box beside the photo"
    ),
    NO_QR_SHAKEN: N_(
        "no readable QR code where a game sheet has its two: the photo is shaken (the corner squares "
        "smeared by about {smear} mm): hold the phone still; {retake}; or type its match id in the match id "
        "box beside the photo"
    ),
    NO_ID: N_(
        "neither of the game sheet's QR codes can be read, nor the match id printed at its top left, for "
        "certain: keep glare, shadow and folds off the top of the sheet; {retake}; or type its match id in "
        "the match id box beside the photo"
    ),
    NO_ID_FAR: N_(
        "neither of the game sheet's QR codes can be read, nor the match id printed at its top left, for "
        "certain: the sheet is too small in the photo ({density} pixels a millimetre; its codes need {need} "
        "or more): come closer; {retake}; or type its match id in the match id box beside the photo"
    ),
    NO_ID_SHAKEN: N_(
        "neither of the game sheet's QR codes can be read, nor the match id printed at its top left, for "
        "certain: the photo is shaken (the corner squares smeared by about {smear} mm): hold the phone "
        "still, or lean it on something; {retake}; or type its match id in the match id box beside the "
        "photo"
    ),
    MATCH_DIFFERS: N_(
        "the sheet's QR code says match {match}, not {given} as its match id box says: not imported; check "
        "which sheet this is (an empty box, or -, reads the sheet's own id)"
    ),
    MATCH_DIFFERS_PRINTED: N_(
        "the match id printed on the sheet reads {match}, not {given} as its match id box says: not "
        "imported; check which sheet this is (an empty box, or -, reads the sheet's own id)"
    ),
    NO_RULESET: N_(
        "match {match} (given in its match id box): the ruleset printed on the sheet cannot be read either: "
        "choose it under ruleset"
    ),
}


class NotASheet(ValueError):
    """The image is not a readable game sheet (no markers, no QR code, another layout): the reason.

    Made by :meth:`said`, it keeps its sentence's template (one of the catalogues') and its fields, so
    that the command line and the upload page say it in their reader's language (:meth:`spoken`);
    ``str()`` is the English."""

    template: str | None = None
    fields: dict[str, object]

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.fields = {}

    @classmethod
    def said(cls, template: str, /, **fields: object) -> NotASheet:
        """A refusal whose sentence is ``template`` with ``fields`` filled; ``{retake}`` in it is
        :data:`RETAKE` (how to take a photo that can be read), in the same language."""
        made = cls(template.format(retake=RETAKE, **fields))
        made.template, made.fields = template, dict(fields)
        return made

    def spoken(self, lang: str) -> str:
        """The sentence in ``lang`` (``en``, ``ja``, ``ko``; English where the catalogue has none)."""
        if self.template is None or lang == DEFAULT:
            return str(self)
        return fill(lang, gettext(lang, self.template), {"retake": gettext(lang, RETAKE), **self.fields})


class Refused(InputError):
    """A photo, or one sheet in it, that cannot be read: the reader's :class:`NotASheet` naming the file
    (the page, the sheet), sayable in the reader's language (:meth:`spoken`; ``str()`` is English)."""

    def __init__(self, refusal: NotASheet, *, file: str) -> None:
        self.refusal = refusal
        super().__init__(str(refusal), file=file)

    def spoken(self, lang: str) -> str:
        """``str(self)`` with the sentence in ``lang`` (the file's name as it is)."""
        return str(InputError(self.refusal.spoken(lang), file=self.file))

    def on_the_page(self) -> Refused:
        """The refusal as the upload page says it (:data:`ON_THE_PAGE`: its fields, not ``--match``)."""
        page = ON_THE_PAGE.get(self.refusal.template or "")
        if page is None:
            return self
        return Refused(NotASheet.said(page, **self.refusal.fields), file=self.file or "")


def spoken(exc: InputError, lang: str) -> str:
    """An import's error as a person reads it in ``lang``: a photo's refusal in that language (how to
    retake it included), any other error by its template (replay.i18n.errors.line: the importers'
    refusals are templates of replay.i18n.inputs; one no template wrote as it is)."""
    if isinstance(exc, Refused):
        return exc.spoken(lang)
    from replay.i18n.errors import line

    return line(lang, exc)
