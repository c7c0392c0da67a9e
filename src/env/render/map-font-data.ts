/**
 * Glyphs of the X11 misc-fixed font 9x15B (bold, 9 x 15 px cells, baseline 12 px below the top), a
 * public-domain bitmap font ("Public domain font. Share and enjoy.", Debian xfonts-base), for
 * ASCII, Latin-1, Latin Extended-A/B and Extended Additional (Vietnamese) and typographic quotes:
 * every letter GeoNames uses in Latin-script place names. Generated from 9x15B.pcf: `GLYPH_ROWS`
 * is raw-deflated, base64-encoded little-endian uint16 rows, 15 per glyph in code point order of
 * `GLYPH_RANGES`, bit x set where column x is ink.
 */

/** Runs [first, last] of the code points with a glyph. */
export const GLYPH_RANGES: readonly (readonly [number, number])[] = [
  [0x20, 0x7e],
  [0xa0, 0x1f5],
  [0x1fa, 0x21b],
  [0x1e00, 0x1e9b],
  [0x1ea0, 0x1ef9],
  [0x2010, 0x2026],
];

export const GLYPH_ROWS = [
  'nVzNa13HFf/dyiguPGS3CeYGCTkUEbzw4tUCRWAhB9uLLgTNKgRnI6pyDY3iGAxGJeJKjVvRRSiFUkhJSQIlf0HTbPKBkgcvi8h2',
  'IWAUbOKAwdkUJWBoDVbfq+983Jlz5px5Tu9gyXq/+5uvMx9nzjnzgFFPyRLMP/+smqQ/DTqIfsbPYazjBo5gGuv4Dv/EDazjcIt+',
  'ivM4jxOmzCXcxV2cibhTmMMcptHBW7iHFVzCV0KdpWcZXYN1XGr+38WyQzvmr+Zvm7rm7U7SqnkMMC+23JY8zNTAP/OYd/nTZwg8',
  'glQWIt62q6tt1zjGMcberdBzqSLMBp3CNJFwHaGWue1yb/KOa7eIFYPNYxnb2MYKFklPX8QaVlFhBUPXn+HZwBjGcBLnDdPWi5Z7',
  'xuG9BB0ajpcO72lb56ptdZpz8+ld3MI2PmUo792S9Rb9jEow9NG4G0fLguSGoowDI+QSnnX00W+lALG993ATN3EJY+hjXZH+0P0O',
  'zymsoIcV99v+j5Z7xcipSVdYzp7jE+UOTD+Mo3a/xzEgvWDzPNXmPsbKtZ/dMTnTcnusNbRFdbJixeN5rZ3ZTfoF5jBFcl7BLCZx',
  'CIcwiVnTvlhGPA0I9xsMjQxuCrXq4TNcx3WD3sMd0650TMZzNJ4p9tMNsa9ibpN3hQ9F7lHXHtpXPZNbbeZTMwtrIqNSWP25FOQ6',
  '+88q8/mCwrW9NcQ3rK/8KhXGroymtRq0K4OfiYNoVHWEFEbWWDtz/UzcjrjLQlpns+w0Hv0Zkh1n1LNu5v/g4Qi9Q3a6sXYVtT16',
  'HidFrn2PziMr81sPd9ZeuyLyx/b/MOGuYQc7pv9OtT3Jn48fjvMVsyeMmZHmRxevM5WvleeUMn+3jUy+c3VvUt+k9WiGVkYzmMYc',
  'KvSJzpBbGezzshuTNvFHqzOfidKeQmXEZzGVwrZrp39exbVo1eGPncV1Mn/B5LODtYQbWiNJ38/hBWEXBJnBlYDaWWp7JV8u1xzq',
  'aAaHFl1s5eb1tiZdVDXVeGWYMvt0t91hbQpr/zWzd/5/T9f8o4k+z2Idd3EER3AN6zhAsDU3jxbNz6P4Lx6L0L7Rm88a/bkvSmfB',
  '7Hh1shLSuvB6NVIZNz+tfJejMVsJ0oxHeTPePsK7+B3exUdmzMWjfRpdLOKEkeeiwN/FKuYwiUnMYRW7whsDt4pvq3WoM7X6CH/G',
  'P1itaoGBZDVby56Ahu1+OIy0tymcaEdq2lqPdnGC6BleQqWwavKn36Y9fBytAPsY4CuTbmHXpfQ5jPnoTJV7ls2pplkzJtoVY1p4',
  'z568phTpopWrl3OsPz1mar+FPr7Fd9jF/UjGHr2Ma7ju5v/9Fp3Ak6a33sCX2Eu4cGPbS6If7VZ2Rw+rM9WBvUYto3b10tAl1Dih',
  'on4eaTnPYCbSb1LN/D4WTE/PYohZk+6N0My7Ri5enxgQ7XvA2iujXTMTNBRmlmio7+da3GH9WJdR38+1sjtXWbRB+tgqtoq3i7eL',
  '5ne/Rb2MrP59Gw+M9t1Txgbdu/nYoCgfGxTlY4NrBVWG65/X0DdzsrEz9PFa+/km9h+eqe/gC3yBz/E5PkOFUyhIi2TN3LdIRn2L',
  'NK2+yqAhZ6qbx/tCo2vvmLSerC7NuOsbza1yq91ldjZuxvyngg7sR5aM+jbJqJeSjPoWaznbGaxx7XMBX2IX9cP97s2oRbJm3nXr',
  'Kh2VXPf27ZVROipTvb3KoL5cWff25cqoL1fT2ysV/REmMYEJTOKnRkvio87LSNa90xkcc2lfcTSdwVK5mlZfZbjBQuN1hdQWaGdx',
  'Y7W5Hs1faQbHmrlvkYymM5hq9VUGlXOONfMJd17eIbN4Qs3Zc2vST0Ph9FSrJ9zTplf1XdLi2un4oNFWVkzacL+X8XVyaltGbWzI',
  'F9yZ369mYZeltq8Y5yfrsOLI3BhPuSXb268k1jytXG/X1cqN8dQa8GMj+9iiF1vzGjRnKwj77xbbf21v3Tfa5WUngcuR3XwQWQoX',
  'BataPHr4enXW6KsDlWvxhntFWEW7WW6ZWYHTGjfc0pSmWU4s6mWgletxqVw+bu4xu6jHZatLmCcSF/iJ2XlkLh1zdxKuxTVrj2TL',
  '7Zqd8zAOKtw6WcuGbOX3KLcl0XPTsOibE7Q/QcVnkaPurLFV+ETXfU3b9Pi0iNaCBbpOxrPMtTLStVyLT6s6cGrd6rSnTtvP0yJa',
  'ZvT2WH+T0W+jE2qTbuAVJgXgPxF+HdvYxcX2rHE/sqfGViCPrxF8pX1HstV38EN3OpYsgQGNrf1HiZ3fr+yynd/vkbq/TPIR2NGO',
  'hFc6u02zuvqZL5fr0VHlVsaqk65mh5z9b6c92Z9i3COYaE/glNuU+QLmjZ9QPtP1zOnqM3yOL4hfw+Oa1XSr+EPxVvFW8X7xfnG3',
  '6Bf9YqvgMqIz1KK2N3ruTHfTneh6ySoqlzuGHxhdS6tVmm8PP2MWPcr1aJ14cviZrlY1RqrnpFyOx+jOiLPkTlZT3WutC7Mu7SVz',
  'fw8fFH8q7hWP44Nij0k3eJiov8zjje16S7BdD5xcB1g0s3NLkP6/8deiUwRfTZB+XO6pqNzg3ZZs5sEK0Wu9Xj3hjCNZ1IONQuam',
  'eI+tz6mvrXR6l2zJpyuDVm6Kj/bihRVJ8hFY1Oc7FC3q9r2cf2FI1rg0GqJhbDg7QMwNFht5Hnl8pU2XI120TjyT0hyUuXaO6Vyr',
  'I8nc0vSZxi1df8vcnazVpZHwrMqV/bAHWV9T7kEXQxDrV6kfJ8Y5GmOxvSd/DvXnwSrDtb5b68cNPqBBcvKSPERdgSlp9RI3aOZy',
  'uWGWSZ6pxiP5RvF60XE7LfeHWm1zDhecDnQBcySO4mXsYBULWDV79Crz/uc8vBylI6c5nR/CKm7h9aJJt0jEEkd3I1+aje35pPWy',
  'fkJ0s6/b+BybziSzbBtPmXcsTtFFZ+O77XqjIp6EpjeutjYG3huD7DmUo5Iflu6DpbNfoPU57bdtHghxUEMxZ3vGGceUibzip8V9',
  't4PtR2Pjsawn3eO0Fy9hJWmRtREfc1biVXIGtaxDuN36sy9lor5KxPKvWRwb1TbP4G/4O9G9eWzeaC/8UDlrNC2cxgkTOcZPbTeT',
  '9P4IfZJGwnHNLXgZuYUp7ufN4n5bF5tW2VmfvkPRC0mdrwm+zQsiuoGrZi6si6uKHSEv4hm3tj+DySiuwEZXXWrPOE3qtrav2rX+',
  'IibMmz3hxGffqRN0gK02TrJZCbeimTJhPLuTZGzRdYWP9DVXD5vzk8bPJ8f2WE/5aH1DKrcqquKu83Z7nzd/wjt0h/3GfKbtzlbr',
  '1SKdNout4ip+rcYGbLenWm8ZW8as84z4WKaBuJfFkRJ1sh8N3T4mR2YOzWrVUdarUe/wvJeN3WaQxIsOk3jRobFMajGf1irW7JI2',
  'rofOI69JhlLnhYja1WiHDXGwZTaSrRJSWq6sx/IcA/oOnjXWkTfx5sN5/SJexUmcxLct8x383MyUBxEeoy+YvAYROlC1vsYT+ApD',
  'rZXPp9vO6iKj/Qh9YFah2y7ZNSmgzV+TKmpXrqvRjuNRatmUfOULqo8v6F6ad3hB9VvxclOf5oLqP/KY7g9dUD01teATCdw664ux',
  'Gq7GldDAnclyZ7LcTpbbyXJ5TPhQaS+VP0cl6dfMGp9yy4x3uG4jKeQ4CvuG5qX1uleziz4QtK/m+bDYc2vOv7DbtLxYcP0cW8x7',
  'oi9GspnPuDHlrZs0DrmxNeWjHKVY4tJJT9OBfeSGZL+KubXCnXGWAm3HCbYEaVeytgTd0hvW0HQVhekhbRX167O0inZHyMjbgiQZ',
  '+Sj8EMETj8kYrZMxac+3+pj0J1xpTDZIiP7gsR+eq3mWZzPxSAGX59GCiW3WuRaXuVU2pojWi/va1vDbLDeuF+facveJ7rVP9v0d',
  'ozNIqM23ztyLOa1GO8yOsMfOZuyxtJ+l2yunFa7NNY335+VKdlGba45r35DjkGdH2K9mM7uGzVfncpz7nVOb6jy7UUXtogGV7aLd',
  'rF20G90K4vEMZWRTTSP2LdqJvOz+zs0dbET2q3w8v3xbx58KZa7XSGXuRvYewQZZJ2lMwlNYMhq4HAthUVs2vScU4go6LqpAt+fI',
  'N4x8i2QubS/n1tm7D3Wm3BKPO1uRxO3iaedN1ep8PFvn4y5qc5+tdgOifWmxEMtZbjfL1e9qdfFC5iaIb5HMXTI2eo1r0Th+oxa8',
  'pSF+I3AtWjptgt8hi+3AqV2NRxuNKfEM9g1p3y+Jvs9jEqT5m/oW05trfsTK3NL4YqpMuT4ul7Njy5jztRXBlxrG83gbdy2hcp3P',
  'utO3XGePynfx/NiQb/osuZh5JDG/dXICmlJQ/R7f8kj9WeZ6Gclcb9WRuTXz0VPufvZ2oc9ZvrtUOp8FMtxaYNdJizh3P3tnqs7W',
  '2a8MWp2Puz0jvTHJdWDpNlYpMtMbZNpNLplLrTqc6+ufv8VZZqIOtBugtFxp7uvcOns3rc6U6/1zMteiJQ7gGJ5Qo98tKuuixwA8',
  'h2MK16Myt+PGicyVTqrUNqJzu1muH3P8ti0fk9I9vlJkjmXGhs5NdW/7hnYHUL7hS8cV55ZtT0jlluS8L3O1cumY5Nw6KjvW3Kl/',
  'oczGM8h3lsuMzm/R8Vb+chxFige0uUF13IwtietRLW5Eay+1GUt1LsUIjJLoOZ3v5ROh3x4gcf2OI3Pr7N3SwYhyZzJcj8r3yqlN',
  'np8HPSpzqS7KuR6VuX4vk7kN2sVhl4dsrU3RcMaphIgVamG2fSpx4zgZyfck46Nu6Kf39GOunUedNtJFur8f31/gcSN+39e48f2k',
  'NCKlSuJR6PcGVGq8itcadG6ZKVf7voK0r2Ju6M8euwstlZveleZRMinXvyHds6blyn4rOT4n3AGUI2FCnJscCSN/AwP1e3Kur5vM',
  'XRc8noFbKxaMeD+aNRFU8apD18kQvSVJn8d2xX217M7e8g0Uu+utKedQ7btZyowdye8Lx/EUDifskK/F5Vrt4HnhRg4YLnNncS7L',
  'rfCeyu3jpQx30+ES9x08h3mcVXxAAZXL5TbTIetnmWvRG1jKttficrkvsftjKfeXCrfZNWLrB/cveFTirmIGvyFabswN6KPct/Lc',
  'MCLl+1Zh/sp2pG7WjmS/baWbsfOX5CYutV/Z3ZWXHPsIliI5cNuXHesbxI60kcwFzb/w3gi/xjnVXmfHulbuMpkrlPucifY6q9j6',
  'AirXOWVSGcn+FG8dtzIolRug3ew3t9QZC4ZmC/Ko/P1IZcanyetcKXG5XdX7z1dJKa7+edUX86sRXP5GfA7l6+QoPD5ZP2EkqJ27',
  'n8j4j3TfU5DCaaWfu/gjNvFhpr38jdiSMIpbqtxG03ydsWNuisfo0/hLhpviFN0UuWFMbgrcYM/pjRzP6VnDj+deJs68q0akHMYb',
  '+H0Ua9Yk+u1ntq9oNNqjcsdVbifJl3I7mXKtBHLl8jfiu6WbCpfKiHPpGUfWn+U72tvR3TTpO8riHNKYv6+wHclXLleWry13KTrt',
  'yTq/dA7lkYHyt+s8Ojp4pO88U9Di+6KrQsLI+g1aa+C8EEPo98l54Zs55WfK7Fsd8ndH5Ta3PfaEO1b+ptWeuw8y+uHvNn/bmAbp',
  'O4yaMXEOQ5xz/6dRizEav8XzWBDbdcDEiS6Ydh8YUWvpG8zCM0duRvAnWPL/Bw==',
].join('');
