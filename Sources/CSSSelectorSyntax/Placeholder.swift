// CSSSelectorSyntax
