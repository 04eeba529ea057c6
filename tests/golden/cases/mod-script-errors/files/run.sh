echo ran
