old body
